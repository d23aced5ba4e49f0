/**
 * Refresh tokens: opaque handles stored hashed, one-time use with rotation. Presenting a used
 * one again revokes its whole family (OAuth 2.0 Security BCP, RFC 9700 §4.14.2), as does
 * revoking any member.
 */
import { randomUUID } from 'node:crypto';
import type { Client } from '../config/schema.js';
import type { Clock, GrantSuccess, JsonValue, Logger } from '../sdk/contracts.js';
import type { Store } from '../store/store.js';
import { InvalidGrant } from './errors.js';
import { newHandle } from './handles.js';

export interface RefreshTokenData {
  readonly scopes: readonly string[];
  readonly authTime: number | undefined;
  readonly claims: Readonly<Record<string, JsonValue>>;
  readonly grantType: string;
  /** Epoch ms after which the family can no longer be refreshed, whatever the sliding window. */
  readonly absoluteExpiresAt: number;
}

export interface RedeemedRefreshToken extends RefreshTokenData {
  readonly subject: string;
  readonly familyId: string;
}

export interface RefreshTokenService {
  issue(request: { client: Client; grant: GrantSuccess; scopes: readonly string[] }): Promise<string>;
  /** Consumes the handle for this client or throws `invalid_grant`. */
  redeem(handle: string, client: Client): Promise<RedeemedRefreshToken>;
}

export function createRefreshTokenService({ store, clock, logger }: { store: Store; clock: Clock; logger: Logger }): RefreshTokenService {
  return {
    async issue({ client, grant, scopes }) {
      const now = clock.now();
      const handle = newHandle();
      const previous = grant.sessionId === undefined ? undefined : await store.get(`family:${grant.sessionId}`);
      const absoluteExpiresAt = previous ? Number(previous.expiresAt) : now + client.absoluteRefreshTokenLifetime * 1000;
      const familyId = grant.sessionId ?? randomUUID();
      if (!previous) {
        // The family record marks when the family ends; rotated tokens inherit its absolute lifetime.
        await store.add({
          key: `family:${familyId}`, type: 'refresh_family', clientId: client.clientId, subjectId: grant.subject,
          sessionId: familyId, createdAt: now, expiresAt: absoluteExpiresAt, consumedAt: undefined, data: '{}',
        });
      }
      const sliding = client.slidingRefreshTokenLifetime;
      const expiresAt = sliding > 0 ? Math.min(absoluteExpiresAt, now + sliding * 1000) : absoluteExpiresAt;
      const data: RefreshTokenData = {
        scopes, authTime: grant.authTime, claims: grant.claims ?? {}, grantType: grant.grantType, absoluteExpiresAt,
      };
      await store.add({
        key: handle, type: 'refresh_token', clientId: client.clientId, subjectId: grant.subject,
        sessionId: familyId, createdAt: now, expiresAt, consumedAt: undefined, data: JSON.stringify(data),
      });
      return handle;
    },

    async redeem(handle, client) {
      const now = clock.now();
      const record = await store.get(handle);
      if (!record || record.type !== 'refresh_token' || record.clientId !== client.clientId) {
        throw new InvalidGrant('The refresh token is invalid.', { logDetail: record ? 'refresh token of another client' : 'unknown refresh token' });
      }
      const won = record.consumedAt === undefined ? await store.consume(handle, now) : undefined;
      if (!won) {
        if (record.expiresAt <= now) throw new InvalidGrant('The refresh token has expired.');
        // Reuse of a rotated token: someone holds a copy. Revoke every token of the family.
        const revoked = record.sessionId ? await store.removeAll({ sessionId: record.sessionId }) : 0;
        logger.warn({ clientId: client.clientId, revoked }, 'refresh token reuse detected; family revoked');
        throw new InvalidGrant('The refresh token is invalid.', { logDetail: 'refresh token reuse' });
      }
      const data = JSON.parse(won.data) as RefreshTokenData;
      return { ...data, subject: won.subjectId ?? '', familyId: won.sessionId ?? '' };
    },
  };
}
