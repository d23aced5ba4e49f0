/**
 * Refresh tokens: opaque handles stored hashed, one-time use with rotation. Presenting a used
 * one again revokes its whole family (RFC 9700 §4.14.2), as does revoking any member; within
 * the client's `refreshTokenReuseInterval` of the first use it is only refused, since two tabs
 * or a retry after a time-out send one token twice at the same moment.
 *
 * A family record holds what every token of the family shares: the originally granted scopes
 * and audience, and the absolute end of the family. A rotated token keeps the original scope
 * even when one refresh asked for less (RFC 6749 §6: the new refresh token's scope is the
 * old one's).
 *
 * Nothing here writes a new token: `prepare` returns the records and the token endpoint stores
 * them in the same transaction that consumes the presented token (see `Store.commit`).
 */
import type { Client } from '../config/schema.js';
import type { Clock, GrantSubject, GrantSuccess, JsonValue, Logger } from '../sdk/contracts.js';
import type { PersistedGrant, Store } from '../store/store.js';
import { InvalidGrant, InvalidScope, type OAuthError } from './errors.js';
import { familyKey, revokeFamily } from './grant-family.js';
import { newHandle } from './handles.js';

interface FamilyData {
  readonly scopes: readonly string[];
  readonly audience: readonly string[] | undefined;
}

export interface RefreshTokenData extends FamilyData {
  readonly authTime: number | undefined;
  /** Issue 35: the sign-in's `amr` and `acr`, carried to every refreshed token. */
  readonly amr?: readonly string[] | undefined;
  readonly acr?: string | undefined;
  /** Issue 34: the upstream identity provider of the sign-in. */
  readonly idp?: string | undefined;
  readonly claims: Readonly<Record<string, JsonValue>>;
  readonly grantType: string;
  /** The DPoP key thumbprint a public client's refresh token is bound to (RFC 9449 §5). */
  readonly jkt?: string | undefined;
  /** The certificate thumbprint (`x5t#S256`) a public client's refresh token is bound to (RFC 8705 §4). */
  readonly x5t?: string | undefined;
  /**
   * When the family ends (epoch ms, its record's `expiresAt`), so a rotation need not read the
   * family record. Tokens written before this field (or by an older node) lack it: their
   * rotation reads the record as before.
   */
  readonly familyEnds?: number | undefined;
}

export interface RedeemedRefreshToken extends RefreshTokenData {
  readonly subject: GrantSubject;
  readonly familyId: string;
}

export interface RefreshTokenService {
  /**
   * A new refresh token of `familyId` and the records to store for it: the token, and the
   * family's record when the grant starts the family. Continuing a family (`grant.sessionId`,
   * a rotation) that is gone is `invalid_grant`.
   */
  prepare(request: { client: Client; grantType: string; grant: GrantSuccess; scopes: readonly string[]; familyId: string; jkt?: string | undefined; x5t?: string | undefined }): Promise<{ handle: string; records: PersistedGrant[] }>;
  /**
   * Checks the handle for this client without using it up, or throws `invalid_grant`.
   * `requestedScopes` beyond the original grant are refused with `invalid_scope`.
   */
  redeem(handle: string, client: Client, requestedScopes?: readonly string[]): Promise<RedeemedRefreshToken>;
  /**
   * The grant's success that continues `redeemed`'s family (`sessionId`): `prepare` then takes
   * the family's scopes, audience and end from the redeemed token instead of reading the
   * family record again.
   */
  continueFamily(redeemed: RedeemedRefreshToken, success: Omit<GrantSuccess, 'sessionId'>): GrantSuccess;
  /** The answer to a refresh token that another request used first; revokes its family when that was longer ago than the reuse interval. */
  refuseSpent(handle: string, client: Client): Promise<OAuthError>;
}

const invalid = (logDetail: string) => new InvalidGrant('The refresh token is invalid.', { logDetail });

/** What a rotation needs of its family: the family's own grant and its end. */
interface FamilyTerms extends FamilyData {
  readonly expiresAt: number;
}

export function createRefreshTokenService({ store, clock, logger }: { store: Store; clock: Clock; logger: Logger }): RefreshTokenService {
  // The family terms of successes `continueFamily` made, for `prepare` of the same request.
  const continued = new WeakMap<GrantSuccess, FamilyTerms>();

  async function familyTerms(grant: GrantSuccess & { sessionId: string }): Promise<FamilyTerms> {
    const known = continued.get(grant);
    if (known !== undefined) return known;
    const family = await store.get(familyKey(grant.sessionId));
    if (!family) throw invalid('refresh token family is gone (revoked or expired)');
    const { scopes, audience } = JSON.parse(family.data) as FamilyData;
    return { scopes, audience, expiresAt: family.expiresAt };
  }

  function newFamily(client: Client, grant: GrantSuccess, scopes: readonly string[], familyId: string, now: number): PersistedGrant {
    return {
      key: familyKey(familyId), type: 'refresh_family', clientId: client.clientId, subjectId: grant.subject.id,
      sessionId: familyId, createdAt: now, expiresAt: now + client.absoluteRefreshTokenLifetime * 1000, consumedAt: undefined,
      // RFC 8707 §2.2: the family holds everything granted; each access token may be for less.
      data: JSON.stringify({ scopes, audience: grant.grantedAudience ?? grant.audience } satisfies FamilyData),
    };
  }

  async function refuse(record: PersistedGrant, client: Client): Promise<OAuthError> {
    if (record.consumedAt === undefined) return new InvalidGrant('The refresh token has expired.');
    const sinceUse = clock.now() - record.consumedAt;
    if (sinceUse < client.refreshTokenReuseInterval * 1000) {
      logger.info({ clientId: client.clientId }, 'refresh token presented again within the reuse interval; refused, family kept');
      return invalid('refresh token reuse within the reuse interval');
    }
    const revoked = record.sessionId ? await revokeFamily(store, record.sessionId) : 0;
    logger.warn({ clientId: client.clientId, revoked }, 'refresh token reuse; refresh token family revoked');
    return invalid('refresh token reuse');
  }

  return {
    async prepare({ client, grantType, grant, scopes, familyId, jkt, x5t }) {
      const now = clock.now();
      const records: PersistedGrant[] = [];
      let family: FamilyTerms;
      if (grant.sessionId !== undefined) {
        family = await familyTerms(grant as GrantSuccess & { sessionId: string });
      } else {
        const record = newFamily(client, grant, scopes, familyId, now);
        records.push(record);
        family = { scopes, audience: grant.grantedAudience ?? grant.audience, expiresAt: record.expiresAt };
      }
      const shared: FamilyData = { scopes: family.scopes, audience: family.audience };
      const sliding = client.slidingRefreshTokenLifetime;
      const expiresAt = sliding > 0 ? Math.min(family.expiresAt, now + sliding * 1000) : family.expiresAt;
      const user = grant.subject.kind === 'user' ? grant.subject : undefined;
      const data: RefreshTokenData = { ...shared, authTime: user?.authTime, ...(user?.amr ? { amr: user.amr } : {}), ...(user?.acr ? { acr: user.acr } : {}), ...(user?.idp ? { idp: user.idp } : {}), claims: grant.claims ?? {}, grantType, ...(jkt === undefined ? {} : { jkt }), ...(x5t === undefined ? {} : { x5t }), familyEnds: family.expiresAt };
      const handle = newHandle();
      records.push({
        key: handle, type: 'refresh_token', clientId: client.clientId, subjectId: grant.subject.id,
        sessionId: familyId, createdAt: now, expiresAt, consumedAt: undefined, data: JSON.stringify(data),
      });
      return { handle, records };
    },

    async redeem(handle, client, requestedScopes) {
      const record = await store.get(handle);
      if (!record || record.type !== 'refresh_token' || record.clientId !== client.clientId) {
        throw invalid(record ? 'refresh token of another client' : 'unknown refresh token');
      }
      if (record.consumedAt !== undefined) throw await refuse(record, client);
      if (record.expiresAt <= clock.now()) throw new InvalidGrant('The refresh token has expired.');
      const data = JSON.parse(record.data) as RefreshTokenData;
      const wider = requestedScopes?.find((s) => !data.scopes.includes(s));
      if (wider !== undefined) throw new InvalidScope('A requested scope was not granted originally.', { logDetail: `scope ${JSON.stringify(wider)} was not granted originally` });
      const id = record.subjectId ?? '';
      const subject: GrantSubject = data.authTime === undefined ? { kind: 'client', id } : {
        kind: 'user', id, authTime: data.authTime, ...(data.amr ? { amr: data.amr } : {}), ...(data.acr ? { acr: data.acr } : {}), ...(data.idp ? { idp: data.idp } : {}),
      };
      return { ...data, subject, familyId: record.sessionId ?? '' };
    },

    continueFamily(redeemed, success) {
      const continuing: GrantSuccess = { ...success, sessionId: redeemed.familyId };
      // A token without the family's end (an older one) leaves `prepare` to read the record.
      if (redeemed.familyEnds !== undefined) {
        continued.set(continuing, { scopes: redeemed.scopes, audience: redeemed.audience, expiresAt: redeemed.familyEnds });
      }
      return continuing;
    },

    async refuseSpent(handle, client) {
      const record = await store.get(handle);
      if (!record || record.type !== 'refresh_token' || record.clientId !== client.clientId) return invalid('refresh token gone before it was used');
      return refuse(record, client);
    },
  };
}
