/**
 * "Forgot password?" (issue 34, self-service), over plain values: the page (`src/account/
 * password-reset-page.ts`) reads the form, this decides.
 *
 * - A request names a username or an e-mail address. Whether an account matched is never in
 *   the answer, nor in how long it takes: the mail is sent after the answer, not before it.
 * - Only a user the database keeps, enabled, with an e-mail address and a password, gets a link:
 *   one who signs in only at an upstream provider gets no local password this way (it would
 *   outlive the provider's own policies and deprovisioning). A username
 *   matches before an e-mail address (a username may look like one); an address several users
 *   share sends each of them their own link.
 * - The link carries a handle of 256 random bits. The store keeps only its SHA-256 (`hashKey`),
 *   as a `password_reset` record with the user's subject and an expiry, and consumes it
 *   atomically, so a link works once, on one node, within `smtp.resetLinkLifetime`.
 * - Counted per client address and per account (`counters`, so N nodes count once): an address
 *   over its limit is told to wait (that says nothing about any account); an account over its
 *   limit gets no more mail, silently, so nobody fills a mailbox with links.
 * - A reset sets the password under `passwordRules`, then ends what the user holds, as disabling
 *   does (`grantsOfAUser`): whoever knew the old password loses its sessions and refresh tokens.
 *   The user's other links go too.
 */
import { brokenPasswordRule, type BrokenPasswordRule, type PasswordRules } from '../config/password-rules.js';
import type { EventService } from '../events/event-service.js';
import type { Mailer } from '../mail/mailer.js';
import { mailFailure } from '../mail/mailer.js';
import { newHandle } from '../oauth/handles.js';
import type { Clock, Logger } from '../sdk/contracts.js';
import type { WindowCounter } from '../throttling/rate-limits.js';
import type { Store } from '../store/store.js';
import type { StoredUser, UserRecordStore } from '../store/user-records.js';
import type { PasswordChange } from './password-change.js';
import { grantsOfAUser } from './user-admin.js';

export const passwordResetRecordType = 'password_reset';

/** Users one address may hold at most; more is an operator's mistake, not a reason to mail dozens. */
const maxUsersPerAddress = 5;

export interface ResetMailText {
  readonly subject: string;
  readonly text: (username: string, link: string, minutes: number) => string;
}

export type ResetRequestResult =
  /** The same for every identifier: an account matched or not. */
  | { readonly kind: 'accepted'; readonly minutes: number }
  | { readonly kind: 'throttled'; readonly retryAfterSeconds: number };

export type ResetResult =
  | { readonly kind: 'reset'; readonly subjectId: string }
  /** Used, expired, never issued, or its user disabled or removed meanwhile. */
  | { readonly kind: 'unusable' }
  | { readonly kind: 'rule-broken'; readonly broken: BrokenPasswordRule };

export interface PasswordReset {
  request(identifier: string, remoteAddress: string | undefined, mail: ResetMailText, requestId?: string): Promise<ResetRequestResult>;
  /** The user a live link resets, for the form; `undefined` when the link is unusable. */
  check(handle: string): Promise<StoredUser | undefined>;
  reset(handle: string, next: string, requestId?: string): Promise<ResetResult>;
  /** Mails still being sent (tests and shutdown wait for them). */
  settled(): Promise<void>;
}

const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function createPasswordReset(deps: {
  users: () => UserRecordStore;
  store: Pick<Store, 'add' | 'get' | 'consume' | 'removeAll'>;
  mailer: Mailer;
  change: PasswordChange;
  rules: PasswordRules;
  lifetimeSeconds: number;
  /** The page a link opens, without the handle. */
  linkBase: string;
  perAddress: WindowCounter;
  perAccount: WindowCounter;
  clock: Clock;
  logger: Logger;
  events: Pick<EventService, 'raise'>;
}): PasswordReset {
  const { clock, logger, events } = deps;
  const minutes = Math.round(deps.lifetimeSeconds / 60);
  const sending = new Set<Promise<void>>();

  async function accountsFor(identifier: string): Promise<StoredUser[]> {
    const byName = await deps.users().getByUsername(identifier);
    if (byName) return [byName];
    if (!emailPattern.test(identifier)) return [];
    const wanted = identifier.toLowerCase();
    // Users are few beside grants, and a reset is rare and counted per address: the list is
    // read, as linking by verified e-mail does (`upstream/stored-accounts.ts`).
    return (await deps.users().list()).filter((u) => u.email?.toLowerCase() === wanted).slice(0, maxUsersPerAddress);
  }

  async function mailLink(user: StoredUser & { email: string }, mail: ResetMailText, requestId: string | undefined): Promise<void> {
    const handle = newHandle();
    const now = clock.now();
    await deps.store.add({
      key: handle, type: passwordResetRecordType, clientId: '', subjectId: user.subjectId, sessionId: undefined,
      createdAt: now, expiresAt: now + deps.lifetimeSeconds * 1000, consumedAt: undefined, data: '{}',
    });
    const link = `${deps.linkBase}?token=${encodeURIComponent(handle)}`;
    try {
      await deps.mailer.send({ to: user.email, subject: mail.subject, text: mail.text(user.username, link, minutes) });
      events.raise({ type: 'password_reset.sent', subject: user.subjectId, delivered: true }, requestId);
    } catch (err) {
      const reason = mailFailure(err);
      logger.error({ subject: user.subjectId, reason }, 'password reset: the mail server did not take the mail');
      events.raise({ type: 'password_reset.sent', subject: user.subjectId, delivered: false, reason }, requestId);
    }
  }

  return {
    async request(identifier, remoteAddress, mail, requestId) {
      const now = clock.now();
      const wait = await deps.perAddress.take(remoteAddress ?? 'unknown', now);
      if (wait > 0) {
        events.raise({ type: 'password_reset.requested', outcome: 'throttled' }, requestId);
        return { kind: 'throttled', retryAfterSeconds: Math.ceil(wait / 1000) };
      }
      const users = (await accountsFor(identifier.trim()))
        .filter((u): u is StoredUser & { email: string } => !u.disabled && u.email !== undefined && u.passwordHash !== undefined);
      if (users.length === 0) events.raise({ type: 'password_reset.requested', outcome: 'no_account' }, requestId);
      for (const user of users) {
        if ((await deps.perAccount.take(user.subjectId, now)) > 0) {
          events.raise({ type: 'password_reset.requested', subject: user.subjectId, outcome: 'throttled' }, requestId);
          continue;
        }
        events.raise({ type: 'password_reset.requested', subject: user.subjectId, outcome: 'mailing' }, requestId);
        // After the answer: how long the mail server takes must not tell whether the account exists.
        const sent = mailLink(user, mail, requestId).catch((err: unknown) => {
          logger.error({ err, subject: user.subjectId }, 'password reset: the link could not be stored');
        });
        sending.add(sent);
        void sent.finally(() => sending.delete(sent));
      }
      return { kind: 'accepted', minutes };
    },

    async check(handle) {
      const record = await deps.store.get(handle);
      if (!record || record.type !== passwordResetRecordType || record.consumedAt !== undefined || record.expiresAt <= clock.now() || !record.subjectId) return undefined;
      const user = await deps.users().getBySubject(record.subjectId);
      return user && !user.disabled ? user : undefined;
    },

    async reset(handle, next, requestId) {
      const user = await this.check(handle);
      if (!user) return { kind: 'unusable' };
      // Checked before the link is spent, so a password the rules refuse leaves the link usable.
      const broken = brokenPasswordRule(next, deps.rules, user.username);
      if (broken) return { kind: 'rule-broken', broken };
      const spent = await deps.store.consume(handle, clock.now());
      if (!spent || spent.type !== passwordResetRecordType || spent.subjectId !== user.subjectId) return { kind: 'unusable' };
      const changed = await deps.change(user.subjectId, next);
      if (changed.kind === 'rule-broken') return { kind: 'rule-broken', broken: changed.broken };
      if (changed.kind === 'not-changeable') return { kind: 'unusable' };
      for (const type of [...grantsOfAUser, passwordResetRecordType]) await deps.store.removeAll({ subjectId: user.subjectId, type });
      events.raise({ type: 'password_reset.used', subject: user.subjectId }, requestId);
      logger.info({ subject: user.subjectId }, 'password reset by mailed link');
      return { kind: 'reset', subjectId: user.subjectId };
    },

    async settled() {
      await Promise.all([...sending]);
    },
  };
}
