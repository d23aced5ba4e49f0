/**
 * GET/POST /account/second-factor (issue 35): a signed-in person sets up one-time codes (a QR
 * code and the secret, shown once, active only after the first right code), sees how many
 * recovery codes are left and makes new ones (shown once); with passkeys on, adds, renames and
 * removes passkeys. Only users the database keeps have
 * factors here. Once a factor is on, changing anything needs a session that gave it (`amr`
 * `mfa`), so a password alone cannot replace the factor. The CSRF token is bound to the
 * browser's cookie id, purpose `second-factor:`.
 */
import type { Logger } from '../sdk/contracts.js';
import type { Csrf } from '../pages/csrf.js';
import type { SecondFactorAccountView } from '../pages/second-factor-templates.js';
import type { SecondFactorNoticeId } from '../pages/second-factor-views.js';
import { qrCodeSvg } from '../second-factor/qr-code.js';
import type { SecondFactorService } from '../second-factor/second-factors.js';
import type { PasskeyService } from '../second-factor/passkeys.js';
import type { SignInSessions } from '../sessions/sign-in-sessions.js';
import { acrMultiFactor, acrOf } from '../authorize/acr.js';
import type { AccountPageRequest } from './password-page.js';

export interface SecondFactorPageOutcome {
  readonly status: number;
  readonly view: SecondFactorAccountView;
  readonly browserId?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

export function createSecondFactorPage(deps: {
  csrf: Csrf;
  sessions: Pick<SignInSessions, 'get' | 'factorsGiven'>;
  newBrowserId: () => string;
  factors: SecondFactorService;
  /** The username of an enabled user the database keeps, else undefined. */
  accountOf(subject: string): Promise<string | undefined>;
  /** With `secondFactor.passkeys`: the passkeys a person adds and removes here. */
  passkeys?: PasskeyService | undefined;
  logger: Logger;
}): (request: AccountPageRequest) => Promise<SecondFactorPageOutcome> {
  const purpose = (browserId: string): string => `second-factor:${browserId}`;

  return async function secondFactorPage(request) {
    const browserId = request.browserId ?? deps.newBrowserId();
    const cookie = request.browserId === undefined ? { browserId } : {};
    const csrf = deps.csrf.tokenFor(purpose(browserId));
    const answer = (status: number, view: SecondFactorAccountView, headers?: Record<string, string>): SecondFactorPageOutcome =>
      ({ status, view, ...cookie, ...(headers ? { headers } : {}) });

    const session = request.browserId === undefined ? undefined : await deps.sessions.get(request.browserId);
    if (!session) return answer(200, { kind: 'notice', notice: 'sign-in-first' });
    const subject = session.subject;
    const account = await deps.accountOf(subject);
    if (account === undefined) return answer(200, { kind: 'notice', notice: 'not-here' });
    const status = await deps.factors.status(subject);
    const stepUp = (status.totp === 'active' || status.passkeys > 0) && acrOf(session.amr) !== acrMultiFactor;
    const passkeys = deps.passkeys;
    const overview = async (httpStatus = 200, notice?: SecondFactorNoticeId): Promise<SecondFactorPageOutcome> => answer(httpStatus, {
      kind: 'overview', csrf, status: await deps.factors.status(subject), stepUp, ...(notice ? { notice } : {}),
      ...(passkeys ? {
        passkeys: (await passkeys.list(subject)).map((p) => ({ id: p.credentialId, name: p.name })),
        ...(stepUp ? {} : { registerOptions: JSON.stringify(await passkeys.registrationOptions(subject, account)) }),
      } : {}),
    });
    const enrolment = async (httpStatus: number, notice?: SecondFactorNoticeId, headers?: Record<string, string>): Promise<SecondFactorPageOutcome> => {
      const pending = (await deps.factors.pendingEnrolment(subject, account)) ?? (await deps.factors.startEnrolment(subject, account));
      if (!pending) return overview(400);
      return answer(httpStatus, { kind: 'enrol', csrf, enrolment: { secret: pending.secret, qrSvg: await qrCodeSvg(pending.uri) }, ...(notice ? { notice } : {}) }, headers);
    };

    if (request.method === 'GET') return overview();
    if (!deps.csrf.verify(purpose(browserId), request.form.get('csrf'))) return answer(400, { kind: 'notice', notice: 'form-expired' });
    if (stepUp) return overview(403);
    switch (request.form.get('action')) {
      case 'enrol':
        if (status.totp === 'active') return overview(400);
        return enrolment(200);
      case 'confirm': {
        const code = (request.form.get('code') ?? '').slice(0, 64).trim();
        if (code === '') return enrolment(400, 'code-missing');
        const checked = await deps.factors.confirmEnrolment(subject, code, request.remoteAddress, 'account_page');
        if (checked.outcome === 'throttled') return enrolment(429, 'too-many-codes', { 'Retry-After': String(checked.retryAfterSeconds) });
        if (checked.outcome === 'rejected') return enrolment(400, 'code-wrong');
        // The right first code proves the new factor: this session has given it.
        await deps.sessions.factorsGiven(browserId, ['otp', 'mfa']);
        deps.logger.info({ subject }, 'one-time codes set up on the account page');
        return answer(200, { kind: 'recovery-codes', codes: checked.recoveryCodes });
      }
      case 'recovery-codes':
        if (status.totp !== 'active') return overview(400);
        return answer(200, { kind: 'recovery-codes', codes: await deps.factors.newRecoveryCodes(subject) });
      case 'add-passkey': {
        if (!passkeys) return overview(400);
        const added = await passkeys.register(subject, (request.form.get('response') ?? '').slice(0, 20_000), request.form.get('name') ?? '');
        if (added) await deps.sessions.factorsGiven(browserId, ['hwk', 'mfa']);
        return overview(added ? 200 : 400, added ? 'passkey-added' : 'passkey-wrong');
      }
      case 'rename-passkey': {
        if (!passkeys) return overview(400);
        const renamed = await passkeys.rename(subject, request.form.get('credential') ?? '', request.form.get('name') ?? '');
        return overview(renamed ? 200 : 400, renamed ? 'passkey-renamed' : undefined);
      }
      case 'remove-passkey': {
        if (!passkeys) return overview(400);
        const removed = await passkeys.remove(subject, request.form.get('credential') ?? '');
        return overview(removed ? 200 : 400, removed ? 'passkey-removed' : undefined);
      }
      default:
        return overview(400);
    }
  };
}
