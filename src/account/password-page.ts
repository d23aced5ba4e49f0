/**
 * GET/POST /account/password (issue 34): a person changes their own password. The form asks
 * for the username (filled in when the browser is signed in), the current password and the new
 * one twice. The current password is checked by the user store in force, under the password
 * grant's throttle (`throttling/throttled-sign-in.ts`), so this page is no side door for guessing;
 * the new one must meet `passwordRules`. Only users the database keeps can change theirs here.
 * The CSRF token is bound to the browser's cookie id (`pages/csrf.ts`), purpose `password:`.
 */
import type { Clock, Logger, ResourceOwnerValidator } from '../sdk/contracts.js';
import type { AccountView } from '../pages/account-views.js';
import type { Csrf } from '../pages/csrf.js';
import type { SignInSessions } from '../sessions/sign-in-sessions.js';
import type { ThrottledSignIn } from '../throttling/throttled-sign-in.js';
import type { PasswordChange } from '../users/password-change.js';

export interface AccountPageRequest {
  readonly method: 'GET' | 'POST';
  readonly form: ReadonlyMap<string, string>;
  readonly browserId: string | undefined;
  readonly remoteAddress: string | undefined;
}

export interface AccountPageOutcome {
  readonly status: number;
  readonly view: AccountView;
  /** A new cookie id to set (a browser that had none). */
  readonly browserId?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

export function createPasswordPage(deps: {
  csrf: Csrf;
  sessions: SignInSessions;
  newBrowserId: () => string;
  users: ResourceOwnerValidator;
  throttled: ThrottledSignIn;
  change: PasswordChange;
  clock: Clock;
  logger: Logger;
}): (request: AccountPageRequest) => Promise<AccountPageOutcome> {
  const csrfFor = (browserId: string): string => deps.csrf.tokenFor(`password:${browserId}`);

  async function signedInName(browserId: string | undefined): Promise<string | undefined> {
    const session = browserId === undefined ? undefined : await deps.sessions.get(browserId);
    return session === undefined ? undefined : (await deps.users.findBySubject(session.subject))?.username;
  }

  return async function passwordPage(request) {
    const browserId = request.browserId ?? deps.newBrowserId();
    const cookie = request.browserId === undefined ? { browserId } : {};
    const form = (status: number, extra: Partial<Extract<AccountView, { kind: 'change-password' }>> = {}): AccountPageOutcome => ({
      status, ...cookie, view: { kind: 'change-password', csrf: csrfFor(browserId), ...extra },
    });

    if (request.method === 'GET') {
      const username = await signedInName(request.browserId);
      return form(200, username === undefined ? {} : { username });
    }
    if (request.browserId === undefined || !deps.csrf.verify(`password:${request.browserId}`, request.form.get('csrf'))) {
      return { status: 400, ...cookie, view: { kind: 'message', message: 'form-expired' } };
    }
    const username = request.form.get('username') ?? '';
    const current = request.form.get('current_password') ?? '';
    const next = request.form.get('new_password') ?? '';
    const again = request.form.get('new_password_again') ?? '';
    const echo = username === '' ? {} : { username };
    if (!username || !current || !next || !again) return form(400, { ...echo, notice: 'fields-missing' });
    // Checked before the current password, so a typo costs no attempt against the throttle.
    if (next !== again) return form(400, { ...echo, notice: 'mismatch' });

    const checked = await deps.throttled.attempt(username, request.remoteAddress, () => deps.users.validate(username, current), (owner) => owner !== undefined);
    if (checked.outcome === 'throttled') {
      const until = deps.clock.now() + checked.retryAfterSeconds * 1000;
      return {
        status: 429, headers: { 'Retry-After': String(checked.retryAfterSeconds) },
        view: { kind: 'message', message: 'too-many-sign-ins', minutes: Math.max(1, Math.ceil(checked.retryAfterSeconds / 60)), until: new Date(until).toISOString().slice(11, 16) },
      };
    }
    if (checked.outcome === 'rejected') return form(400, { ...echo, notice: 'credentials-wrong' });
    const owner = checked.result!;
    if (next === current) return form(400, { ...echo, notice: 'same-password' });
    const result = await deps.change(owner.subjectId, next);
    if (result.kind === 'not-changeable') return form(400, { ...echo, notice: 'not-changeable' });
    if (result.kind === 'rule-broken') return form(400, { ...echo, broken: result.broken });
    deps.logger.info({ subject: owner.subjectId }, 'password changed on the account page');
    return { status: 200, ...cookie, view: { kind: 'password-changed' } };
  };
}
