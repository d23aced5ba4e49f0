/**
 * The store floor (issue 40): exactly the store calls each durable row of the benchmark makes per
 * request, on the service's own store (`createStore`, migrated: the same prepared statements,
 * the same SQLite group commit or PostgreSQL turn groups), with records of the same shapes and
 * sizes, and nothing else: no client authentication, no PKCE, no signature, no JSON parsing of
 * what is read. Served by bare Koa (bare-koa-store.mjs), it is what the row would cost if the
 * service did nothing but Koa's work and these calls; with the signatures added, the row's bound.
 *
 * The calls, per request (checked against the service by logging every statement it ran):
 *   code redemption   get(code); commit(consume code + add family + add refresh token)
 *   refresh rotation  get(refresh token); commit(consume token + add new token): the token carries
 *                     its family's end, so the family record is not read again
 *   reference token   commit(add reference token), which is the single-insert `add` path
 *   DPoP              add(used proof `jti`)
 * Each `commit` of a consume and inserts is one transaction (SQLite: a savepoint in the turn's
 * group commit; PostgreSQL: the turn's commits in one statement, postgres-spend-and-add.ts); a
 * lone insert goes through the turn's group (SQLite: the turn's transaction; PostgreSQL: one
 * `insert … unnest`).
 */
import { createStore } from '../../src/store/create-store.js';
import { isDuplicateKeyError, type PersistedGrant, type Store } from '../../src/store/store.js';
import { newHandle, newTokenId } from '../../src/oauth/handles.js';
import { familyKey, familyOfSpentGrant } from '../../src/oauth/grant-family.js';

// The bench's stores are new databases, contracted at once: time-ordered family ids, as the service writes.
const timeOrdered = true;
import { timeOrderedKey } from '../../src/sdk/store-keys.js';

const minute = 60_000;
/** How long a seeded code lives: the floor's pools are made before each round, as the rows' are. */
export const seededCodeLifetimeSeconds = 600;
const day = 24 * 60 * minute;
const scopes = ['openid', 'api1.read', 'offline_access'];
// As the service writes them for the bench's web app (src/authorize/authorization-codes.ts,
// src/oauth/refresh-tokens.ts): the same fields, so the same row sizes.
const familyData = JSON.stringify({ scopes });
const refreshData = (grantType: string, authTime: number): string =>
  JSON.stringify({ scopes, authTime, amr: ['pwd'], acr: 'pwd', claims: {}, grantType });
/** A DPoP key thumbprint (RFC 7638): 43 base64url characters, one key, as the bench's client keeps one. */
const jkt = 'x'.repeat(43);
// RFC 9449 §11.1 as the service applies it: a proof is accepted `dpop.proofMaxAge` (default 300 s) after its `iat`.
const proofMaxAge = 300;

export type Seeded = 'code' | 'refresh';

export interface StoreFloor {
  /** `count` codes (or refresh tokens with their families) of `clientId`, stored as the service stores them; their handles. */
  seed(kind: Seeded, clientId: string, count: number): Promise<string[]>;
  /** The new refresh token, or undefined when the code is unknown or spent. */
  redeemCode(code: string): Promise<string | undefined>;
  /** The new refresh token, or undefined when the token is unknown or spent, or its family gone. */
  rotateRefresh(handle: string): Promise<string | undefined>;
  /** A reference token's handle, its claims stored. */
  issueReference(issuer: string, clientId: string): Promise<string>;
  /** Records the proof's `jti` (its `iat` in front, as the service keys it); false when it was used. */
  recordProofJti(proof: string): Promise<boolean>;
  close(): Promise<void>;
}

/** Opens `spec` (a `store` value: `sqlite:<path>` or `postgres://…`) as the service does, migrated. */
export async function openStoreFloor(spec: string, configDir: string): Promise<StoreFloor> {
  const store = await createStore(spec, configDir);
  await store.migrate();
  return storeFloor(store);
}

export function storeFloor(store: Store): StoreFloor {
  const authTime = Math.floor(Date.now() / 1000);

  function code(clientId: string, now: number): PersistedGrant {
    const key = newHandle();
    return {
      key, type: 'authorization_code', clientId, subjectId: '1001', sessionId: familyOfSpentGrant(key, timeOrdered), createdAt: now, expiresAt: now + seededCodeLifetimeSeconds * 1000, consumedAt: undefined,
      data: JSON.stringify({
        redirectUri: 'https://web.example/callback', codeChallenge: newHandle().slice(12), scopes, sid: newTokenId(), authTime, amr: ['pwd'], acr: 'pwd',
      }),
    };
  }

  const family = (familyId: string, clientId: string, now: number): PersistedGrant => ({
    key: familyKey(familyId), type: 'refresh_family', clientId, subjectId: '1001', sessionId: familyId,
    createdAt: now, expiresAt: now + 30 * day, consumedAt: undefined, data: familyData,
  });

  const refreshToken = (familyId: string, clientId: string, grantType: string, now: number): PersistedGrant => ({
    key: newHandle(), type: 'refresh_token', clientId, subjectId: '1001', sessionId: familyId,
    createdAt: now, expiresAt: now + 15 * day, consumedAt: undefined, data: refreshData(grantType, authTime),
  });

  async function seedOne(kind: Seeded, clientId: string, now: number): Promise<string> {
    if (kind === 'code') {
      const record = code(clientId, now);
      await store.add(record);
      return record.key;
    }
    // A family as a code redemption leaves it: the family and its first refresh token.
    const familyId = familyOfSpentGrant(newHandle(), timeOrdered);
    const token = refreshToken(familyId, clientId, 'authorization_code', now);
    await store.commit({ add: [family(familyId, clientId, now), token] });
    return token.key;
  }

  return {
    async seed(kind, clientId, count) {
      const now = Date.now();
      return Promise.all(Array.from({ length: count }, () => seedOne(kind, clientId, now)));
    },

    async redeemCode(handle) {
      const found = await store.get(handle);
      if (!found || found.consumedAt !== undefined) return undefined;
      const now = Date.now();
      // The code's family is the one its record names, as the service takes it.
      const familyId = found.sessionId ?? familyOfSpentGrant(handle, timeOrdered);
      const token = refreshToken(familyId, found.clientId, 'authorization_code', now);
      const won = await store.commit({ consume: { key: handle, now }, add: [family(familyId, found.clientId, now), token] });
      return won ? token.key : undefined;
    },

    async rotateRefresh(handle) {
      const found = await store.get(handle);
      if (!found || found.consumedAt !== undefined || found.sessionId === undefined) return undefined;
      const now = Date.now();
      const token = refreshToken(found.sessionId, found.clientId, 'refresh_token', now);
      return (await store.commit({ consume: { key: handle, now }, add: [token] })) ? token.key : undefined;
    },

    async issueReference(issuer, clientId) {
      const now = Math.floor(Date.now() / 1000);
      const key = newHandle();
      const claims = { iss: issuer, sub: clientId, aud: 'api1', client_id: clientId, scope: 'api1.read', iat: now, nbf: now, exp: now + 3600, jti: newTokenId() };
      await store.commit({
        add: [{ key, type: 'reference_token', clientId, subjectId: clientId, sessionId: undefined, createdAt: now * 1000, expiresAt: (now + 3600) * 1000, consumedAt: undefined, data: JSON.stringify(claims) }],
      });
      return key;
    },

    async recordProofJti(proof) {
      // Only the claims the record needs; the signature is the signature bound's part.
      const { jti, iat } = JSON.parse(Buffer.from(proof.split('.')[1] ?? '', 'base64url').toString()) as { jti: string; iat: number };
      try {
        await store.add({
          key: timeOrderedKey(iat * 1000, `dpop_jti:${jkt}:${jti}`), type: 'dpop_jti', clientId: '', subjectId: undefined, sessionId: undefined,
          createdAt: Date.now(), expiresAt: Math.ceil((iat + proofMaxAge + 1) * 1000), consumedAt: undefined, data: '{}',
        });
        return true;
      } catch (err) {
        if (isDuplicateKeyError(err)) return false;
        throw err;
      }
    },

    close: () => store.close(),
  };
}
