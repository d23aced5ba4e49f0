/**
 * Refresh tokens: opaque handles stored hashed, one-time use with rotation. Presenting a used
 * one again revokes its whole family (RFC 9700 §4.14.2), as does revoking any member.
 *
 * A family record holds what every token of the family shares: the originally granted scopes
 * and audience, and the absolute end of the family. A rotated token keeps the original scope
 * even when one refresh asked for less (RFC 6749 §6: the new refresh token's scope is the
 * old one's).
 */
import { randomUUID } from 'node:crypto';
import type { Client } from '../config/schema.js';
import type { Clock, GrantSuccess, JsonValue, Logger } from '../sdk/contracts.js';
import type { PersistedGrant, Store } from '../store/store.js';
import { InvalidGrant, InvalidScope } from './errors.js';
import { newHandle } from './handles.js';

interface FamilyData {
  readonly scopes: readonly string[];
  readonly audience: readonly string[] | undefined;
}

export interface RefreshTokenData extends FamilyData {
  readonly authTime: number | undefined;
  readonly claims: Readonly<Record<string, JsonValue>>;
  readonly grantType: string;
}

export interface RedeemedRefreshToken extends RefreshTokenData {
  readonly subject: string;
  readonly familyId: string;
}

export interface RefreshTokenService {
  /** Starts a family, or continues the one named by `grant.sessionId` (rotation). */
  issue(request: { client: Client; grant: GrantSuccess; scopes: readonly string[] }): Promise<string>;
  /**
   * Consumes the handle for this client or throws `invalid_grant`. `requestedScopes` beyond
   * the original grant are refused with `invalid_scope` before the token is used up.
   */
  redeem(handle: string, client: Client, requestedScopes?: readonly string[]): Promise<RedeemedRefreshToken>;
}

const familyKey = (familyId: string): string => `family:${familyId}`;

export function createRefreshTokenService({ store, clock, logger }: { store: Store; clock: Clock; logger: Logger }): RefreshTokenService {
  async function startFamily(client: Client, grant: GrantSuccess, scopes: readonly string[], now: number): Promise<PersistedGrant> {
    const familyId = randomUUID();
    const family: PersistedGrant = {
      key: familyKey(familyId), type: 'refresh_family', clientId: client.clientId, subjectId: grant.subject,
      sessionId: familyId, createdAt: now, expiresAt: now + client.absoluteRefreshTokenLifetime * 1000, consumedAt: undefined,
      data: JSON.stringify({ scopes, audience: grant.audience } satisfies FamilyData),
    };
    await store.add(family);
    return family;
  }

  async function revokeFamily(record: PersistedGrant, client: Client, why: string): Promise<never> {
    const revoked = record.sessionId ? await store.removeAll({ sessionId: record.sessionId }) : 0;
    logger.warn({ clientId: client.clientId, revoked }, `${why}; refresh token family revoked`);
    throw new InvalidGrant('The refresh token is invalid.', { logDetail: why });
  }

  return {
    async issue({ client, grant, scopes }) {
      const now = clock.now();
      const family = grant.sessionId === undefined ? undefined : await store.get(familyKey(grant.sessionId));
      if (grant.sessionId !== undefined && !family) {
        throw new InvalidGrant('The refresh token is invalid.', { logDetail: 'refresh token family is gone (revoked or expired)' });
      }
      const current = family ?? (await startFamily(client, grant, scopes, now));
      const shared = JSON.parse(current.data) as FamilyData;
      const sliding = client.slidingRefreshTokenLifetime;
      const expiresAt = sliding > 0 ? Math.min(current.expiresAt, now + sliding * 1000) : current.expiresAt;
      const data: RefreshTokenData = { ...shared, authTime: grant.authTime, claims: grant.claims ?? {}, grantType: grant.grantType };
      const handle = newHandle();
      await store.add({
        key: handle, type: 'refresh_token', clientId: client.clientId, subjectId: grant.subject,
        sessionId: current.sessionId, createdAt: now, expiresAt, consumedAt: undefined, data: JSON.stringify(data),
      });
      return handle;
    },

    async redeem(handle, client, requestedScopes) {
      const now = clock.now();
      const record = await store.get(handle);
      if (!record || record.type !== 'refresh_token' || record.clientId !== client.clientId) {
        throw new InvalidGrant('The refresh token is invalid.', { logDetail: record ? 'refresh token of another client' : 'unknown refresh token' });
      }
      if (record.consumedAt !== undefined) return revokeFamily(record, client, 'refresh token reuse');
      if (record.expiresAt <= now) throw new InvalidGrant('The refresh token has expired.');
      const data = JSON.parse(record.data) as RefreshTokenData;
      const wider = requestedScopes?.find((s) => !data.scopes.includes(s));
      if (wider !== undefined) throw new InvalidScope('A requested scope was not granted originally.', { logDetail: `scope ${JSON.stringify(wider)} was not granted originally` });
      const won = await store.consume(handle, now);
      // Another request consumed it first: the same token was presented twice.
      if (!won) return revokeFamily(record, client, 'refresh token reuse (concurrent)');
      return { ...data, subject: won.subjectId ?? '', familyId: won.sessionId ?? '' };
    },
  };
}
