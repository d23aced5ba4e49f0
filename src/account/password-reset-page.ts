/**
 * GET/POST /account/password-reset (issue 34, "Forgot password?"): a person asks for a link by
 * username or e-mail address, and the mailed link (`?token=`) opens the form that sets a new
 * password (`users/password-reset.ts` decides both). The answer to a request is the same page
 * whether an account matched or not. Each form's CSRF token is bound to the browser's cookie id
 * (`pages/csrf.ts`), purposes `reset:` and `reset-link:`; a link followed in a browser without
 * the cookie gets one with the form.
 */
import type { Csrf } from '../pages/csrf.js';
import type { PasswordReset, ResetMailText } from '../users/password-reset.js';
import type { AccountPageOutcome, AccountPageRequest } from './password-page.js';

export interface ResetPageRequest extends AccountPageRequest {
  /** `token` of the query, on a GET. */
  readonly token: string | undefined;
  /** The mail's words in the language the page is shown in. */
  readonly mail: ResetMailText;
  readonly requestId?: string | undefined;
}

/** A link's handle as `newHandle` makes it; anything else is refused before the store is asked. */
const handlePattern = /^[0-9a-f]{12}[\w-]{43}$/;

export function createPasswordResetPage(deps: { csrf: Csrf; newBrowserId: () => string; reset: PasswordReset }): (request: ResetPageRequest) => Promise<AccountPageOutcome> {
  const { csrf } = deps;
  const unusable: AccountPageOutcome = { status: 400, view: { kind: 'reset-unusable' } };

  return async function passwordResetPage(request) {
    const browserId = request.browserId ?? deps.newBrowserId();
    const cookie = request.browserId === undefined ? { browserId } : {};
    const askForm = (status: number, notice?: 'fields-missing'): AccountPageOutcome => ({
      status, ...cookie, view: { kind: 'reset-request', csrf: csrf.tokenFor(`reset:${browserId}`), ...(notice ? { notice } : {}) },
    });

    if (request.method === 'GET') {
      if (request.token === undefined) return askForm(200);
      const user = handlePattern.test(request.token) ? await deps.reset.check(request.token) : undefined;
      if (!user) return { ...unusable, ...cookie };
      return { status: 200, ...cookie, view: { kind: 'reset-form', csrf: csrf.tokenFor(`reset-link:${browserId}`), token: request.token, username: user.username } };
    }

    const token = request.form.get('token');
    const purpose = token === undefined ? 'reset' : 'reset-link';
    if (request.browserId === undefined || !csrf.verify(`${purpose}:${request.browserId}`, request.form.get('csrf'))) {
      return { status: 400, ...cookie, view: { kind: 'message', message: 'form-expired' } };
    }

    if (token === undefined) {
      const identifier = request.form.get('identifier')?.trim() ?? '';
      if (!identifier) return askForm(400, 'fields-missing');
      const asked = await deps.reset.request(identifier, request.remoteAddress, request.mail, request.requestId);
      if (asked.kind === 'throttled') {
        return { status: 429, headers: { 'Retry-After': String(asked.retryAfterSeconds) }, view: { kind: 'reset-throttled', minutes: Math.max(1, Math.ceil(asked.retryAfterSeconds / 60)) } };
      }
      return { status: 200, view: { kind: 'reset-sent', minutes: asked.minutes } };
    }

    if (!handlePattern.test(token)) return unusable;
    const user = await deps.reset.check(token);
    if (!user) return unusable;
    const next = request.form.get('new_password') ?? '';
    const again = request.form.get('new_password_again') ?? '';
    const form = (extra: Partial<Extract<AccountPageOutcome['view'], { kind: 'reset-form' }>>): AccountPageOutcome => ({
      status: 400, view: { kind: 'reset-form', csrf: csrf.tokenFor(`reset-link:${request.browserId}`), token, username: user.username, ...extra },
    });
    if (!next || !again) return form({ notice: 'fields-missing' });
    if (next !== again) return form({ notice: 'mismatch' });
    const result = await deps.reset.reset(token, next, request.requestId);
    if (result.kind === 'rule-broken') return form({ broken: result.broken });
    if (result.kind === 'unusable') return unusable;
    return { status: 200, view: { kind: 'reset-done' } };
  };
}
