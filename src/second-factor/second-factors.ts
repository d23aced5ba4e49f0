/**
 * The second factors of the users the service keeps (issue 35): enrolling a TOTP secret,
 * checking a code or a recovery code, new recovery codes, removal. The pages (the account page,
 * the sign-in flow's second step) and `svc users` go through here; nothing here knows HTTP.
 *
 * - The secret is sealed with the key-encryption keys (`KeyProtector.sealSecret`, the signing
 *   keys' AES-256-GCM), named after the subject so a sealed secret opens for that user only.
 * - A code is checked under the password throttle, counted under a name of its own
 *   (`second-factor:<subject>`), so code guesses slow down like password guesses, and a correct
 *   password does not clear them.
 * - A code is accepted once: the step it matched must be above the last accepted one
 *   (RFC 6238 §5.2), written with one conditional update across nodes.
 * - Events name the subject and the factor, never the code or the secret.
 */
import type { Clock } from '../sdk/contracts.js';
import type { EventService } from '../events/event-service.js';
import type { KeyProtector } from '../oauth/keys/key-protection.js';
import type { FactorKind, SecondFactorStore } from '../store/second-factor-records.js';
import type { ThrottledSignIn } from '../throttling/throttled-sign-in.js';
import { hashRecoveryCode, newRecoveryCodes, normalRecoveryCode } from './recovery-codes.js';
import { matchingStep, newTotpSecret, totpUri } from './totp.js';

export interface FactorStatus {
  readonly totp: 'none' | 'pending' | 'active';
  readonly recoveryCodesLeft: number;
  readonly recoveryCodesTotal: number;
  readonly passkeys: number;
}

export type CodeCheck =
  | { readonly outcome: 'accepted'; readonly factor: 'totp' | 'recovery' }
  | { readonly outcome: 'rejected' }
  | { readonly outcome: 'throttled'; readonly retryAfterSeconds: number };

export interface Enrolment {
  /** Base32, shown once for typing in. */
  readonly secret: string;
  readonly uri: string;
}

export interface SecondFactorService {
  status(subjectId: string): Promise<FactorStatus>;
  /** Whether the user must give a second factor at sign-in (an active TOTP secret, or a passkey). */
  hasActive(subjectId: string): Promise<boolean>;
  /** A new pending secret in place of any pending one; refused (undefined) while one is active. */
  startEnrolment(subjectId: string, account: string): Promise<Enrolment | undefined>;
  /** The pending secret again (the page shown after a wrong code), or undefined. */
  pendingEnrolment(subjectId: string, account: string): Promise<Enrolment | undefined>;
  /** Confirms the pending secret with a code; on success, ten new recovery codes to show once. */
  confirmEnrolment(subjectId: string, code: string, remoteAddress: string | undefined, via: string): Promise<{ outcome: 'accepted'; recoveryCodes: string[] } | Exclude<CodeCheck, { outcome: 'accepted' }>>;
  /** A TOTP code or a recovery code at sign-in. */
  verify(subjectId: string, code: string, remoteAddress: string | undefined, via: string): Promise<CodeCheck>;
  /** Ten new recovery codes in place of the old ones. */
  newRecoveryCodes(subjectId: string): Promise<string[]>;
  /** Removes the factors of `kind` (all without one); returns how many records went. */
  remove(subjectId: string, kind: FactorKind | undefined, by: 'user' | 'operator'): Promise<number>;
}

/** What the sealed secret is named (and bound to, as the cipher's additional data). */
export const totpSealName = (subjectId: string): string => `TOTP secret of ${subjectId}`;
const sealName = totpSealName;

export function createSecondFactorService(deps: {
  factors: () => SecondFactorStore;
  protector: Pick<KeyProtector, 'sealSecret' | 'openSecret'>;
  throttle: ThrottledSignIn;
  issuer: string;
  clock: Clock;
  events?: EventService | undefined;
  /**
   * Whether passkeys count as a factor (`secondFactor.passkeys`): with them off, a person's
   * passkeys ask for nothing at sign-in, where no page could take them.
   */
  passkeys?: boolean | undefined;
}): SecondFactorService {
  const { clock, events } = deps;
  const label = new URL(deps.issuer).host;
  const throttleName = (subjectId: string): string => `second-factor:${subjectId}`;

  async function newCodes(subjectId: string): Promise<string[]> {
    const codes = newRecoveryCodes();
    await deps.factors().putRecoveryCodes(subjectId, codes.map((c) => hashRecoveryCode(subjectId, normalRecoveryCode(c)!)), clock.now());
    return codes;
  }

  /** Runs `check` under the throttle; `check` answers whether the code was good. */
  async function throttled<T extends { ok: boolean }>(subjectId: string, remoteAddress: string | undefined, via: string, check: () => Promise<T>) {
    const checked = await deps.throttle.attempt(throttleName(subjectId), remoteAddress, check, (r) => r.ok);
    if (checked.outcome === 'throttled') events?.raise({ type: 'second_factor.failed', subject: subjectId, via, reason: 'throttled' });
    return checked;
  }

  async function enrolmentOf(subjectId: string, account: string): Promise<Enrolment | undefined> {
    const totp = (await deps.factors().get(subjectId)).totp;
    if (!totp || totp.confirmedAt !== undefined) return undefined;
    const secret = deps.protector.openSecret(sealName(subjectId), totp.secret);
    return { secret, uri: totpUri(secret, label, account) };
  }

  return {
    async status(subjectId) {
      const { totp, recoveryCodes, passkeys } = await deps.factors().get(subjectId);
      return {
        passkeys: deps.passkeys === true ? passkeys.length : 0,
        totp: totp === undefined ? 'none' : totp.confirmedAt === undefined ? 'pending' : 'active',
        recoveryCodesLeft: recoveryCodes.filter((c) => c.usedAt === undefined).length,
        recoveryCodesTotal: recoveryCodes.length,
      };
    },
    async hasActive(subjectId) {
      const { totp, passkeys } = await deps.factors().get(subjectId);
      return totp?.confirmedAt !== undefined || (deps.passkeys === true && passkeys.length > 0);
    },
    async startEnrolment(subjectId, account) {
      const current = (await deps.factors().get(subjectId)).totp;
      if (current?.confirmedAt !== undefined) return undefined;
      const secret = newTotpSecret();
      await deps.factors().putTotp(subjectId, deps.protector.sealSecret(sealName(subjectId), secret), clock.now());
      return { secret, uri: totpUri(secret, label, account) };
    },
    pendingEnrolment: enrolmentOf,
    async confirmEnrolment(subjectId, code, remoteAddress, via) {
      const checked = await throttled(subjectId, remoteAddress, via, async () => {
        const totp = (await deps.factors().get(subjectId)).totp;
        if (!totp || totp.confirmedAt !== undefined) return { ok: false };
        const step = matchingStep(deps.protector.openSecret(sealName(subjectId), totp.secret), code.trim(), clock.now());
        return { ok: step !== undefined && (await deps.factors().acceptTotpStep(subjectId, totp.secret, step, clock.now(), true)) };
      });
      if (checked.outcome === 'throttled') return checked;
      if (checked.outcome === 'rejected') {
        events?.raise({ type: 'second_factor.failed', subject: subjectId, via, reason: 'wrong' });
        return { outcome: 'rejected' };
      }
      events?.raise({ type: 'second_factor.enrolled', subject: subjectId, factor: 'totp' });
      const recoveryCodes = await newCodes(subjectId);
      events?.raise({ type: 'second_factor.enrolled', subject: subjectId, factor: 'recovery' });
      return { outcome: 'accepted', recoveryCodes };
    },
    async verify(subjectId, code, remoteAddress, via) {
      type Verdict = { ok: boolean; factor?: 'totp' | 'recovery'; replayed?: boolean };
      const checked = await throttled(subjectId, remoteAddress, via, async (): Promise<Verdict> => {
        const totp = (await deps.factors().get(subjectId)).totp;
        if (!totp || totp.confirmedAt === undefined) return { ok: false };
        const typed = code.trim();
        if (/^\d{6}$/.test(typed)) {
          const step = matchingStep(deps.protector.openSecret(sealName(subjectId), totp.secret), typed, clock.now());
          if (step === undefined) return { ok: false };
          const fresh = await deps.factors().acceptTotpStep(subjectId, totp.secret, step, clock.now(), false);
          return fresh ? { ok: true, factor: 'totp' } : { ok: false, replayed: true };
        }
        const normal = normalRecoveryCode(typed);
        if (normal === undefined) return { ok: false };
        return (await deps.factors().spendRecoveryCode(subjectId, hashRecoveryCode(subjectId, normal), clock.now())) ? { ok: true, factor: 'recovery' } : { ok: false };
      });
      if (checked.outcome === 'throttled') return checked;
      if (checked.outcome === 'rejected') {
        events?.raise({ type: 'second_factor.failed', subject: subjectId, via, reason: checked.result.replayed ? 'replayed' : 'wrong' });
        return { outcome: 'rejected' };
      }
      const factor = checked.result.factor!;
      events?.raise({ type: 'second_factor.used', subject: subjectId, factor, via });
      return { outcome: 'accepted', factor };
    },
    async newRecoveryCodes(subjectId) {
      const codes = await newCodes(subjectId);
      events?.raise({ type: 'second_factor.enrolled', subject: subjectId, factor: 'recovery' });
      return codes;
    },
    async remove(subjectId, kind, by) {
      const removed = await deps.factors().remove(subjectId, kind);
      if (removed > 0) events?.raise({ type: 'second_factor.removed', subject: subjectId, factor: kind ?? 'all', by });
      return removed;
    },
  };
}
