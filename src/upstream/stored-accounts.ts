/**
 * Account linking kept in the database (issue 34): the `UpstreamAccounts` port over the user
 * store (`src/store/user-records.ts`), so a person who signs in through a provider is a user
 * like any other: listed by `svc users`, disabled by `svc users disable`, with claims in ID
 * tokens and UserInfo. Links are keyed by (provider, issuer, provider subject) only, never by
 * e-mail (OIDC Core §5.7).
 */
import { randomBytes } from 'node:crypto';
import type { Clock } from '../sdk/contracts.js';
import { isDuplicateKeyError } from '../sdk/store-errors.js';
import type { UserClaims, UserRecordStore } from '../store/user-records.js';
import type { UpstreamAccounts, UpstreamIdentity } from './upstream-accounts.js';

/** A linked user who was disabled: the sign-in is refused, never a new account made in its place. */
export class DisabledAccountError extends Error {
  override readonly name = 'DisabledAccountError';
}

/** Claims kept with the user: plain values, and not what the record holds in its own fields. */
function storedClaims(claims: Readonly<Record<string, unknown>>): UserClaims {
  const kept: Record<string, string | number | boolean> = {};
  for (const [name, value] of Object.entries(claims)) {
    if (name === 'sub' || name === 'email' || name === 'email_verified') continue;
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') kept[name] = value;
  }
  return kept;
}

export function storedUpstreamAccounts(users: () => UserRecordStore, clock: Clock): UpstreamAccounts {
  return {
    async findByUpstream(provider, issuer, subject) {
      const user = await users().findByUpstream(provider, subject);
      if (!user || !user.upstreamIdentities.some((i) => i.provider === provider && i.subject === subject && i.issuer === issuer)) return undefined;
      if (user.disabled) throw new DisabledAccountError(`the local user linked to this ${provider} identity is disabled`);
      return user.subjectId;
    },

    async createFromUpstream(identity: UpstreamIdentity) {
      const now = clock.now();
      // 128 random bits, never reused (as `svc users add`); the username names where the person came from.
      const subjectId = randomBytes(16).toString('base64url');
      const base = `${identity.provider}:${identity.subject}`.slice(0, 200);
      const user = {
        subjectId, email: identity.email, emailVerified: identity.emailVerified, claims: storedClaims(identity.claims),
        disabled: false, passwordHash: undefined, createdAt: now,
      };
      try {
        await users().add({ ...user, username: base });
      } catch (err) {
        // A local user already took that name: keep the provider's prefix, add a random tail.
        if (!isDuplicateKeyError(err)) throw err;
        await users().add({ ...user, username: `${base.slice(0, 190)}~${randomBytes(4).toString('hex')}` });
      }
      await users().link(subjectId, { provider: identity.provider, issuer: identity.issuer, subject: identity.subject, linkedAt: now });
      return subjectId;
    },

    async linkByVerifiedEmail(identity) {
      if (identity.email === undefined) return undefined;
      // Exactly one enabled user with this address verified; two are ambiguous and link to neither.
      const matches = (await users().list()).filter((u) => !u.disabled && u.emailVerified && u.email?.toLowerCase() === identity.email);
      if (matches.length !== 1) return undefined;
      const [user] = matches;
      const linked = await users().link(user!.subjectId, { provider: identity.provider, issuer: identity.issuer, subject: identity.subject, linkedAt: clock.now() });
      return linked ? user!.subjectId : undefined;
    },
  };
}
