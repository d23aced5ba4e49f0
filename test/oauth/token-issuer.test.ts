/**
 * The token issuer with plain values, a memory store and real ES256 and RS256 keys: what an
 * access token says (RFC 9068), when a refresh token and an ID token come with it, the lifetimes,
 * sender binding, reference tokens, and that `prepare` stores nothing while `issue` does.
 */
import { decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/resolve.js';
import { createIdTokenIssuer } from '../../src/oauth/id-token-issuer.js';
import type { SigningKey } from '../../src/oauth/keys/signing-key.js';
import { createRefreshTokenService, type RefreshTokenService } from '../../src/oauth/refresh-tokens.js';
import { createTokenIssuer, type IssueRequest, type TokenIssuer } from '../../src/oauth/token-issuer.js';
import type { Client, GrantSuccess, Logger } from '../../src/sdk/index.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import type { Store } from '../../src/store/store.js';
import { keyRingOf, signingKeys } from './signing-keys.js';
import { familyOfSpentGrant } from '../../src/oauth/grant-family.js';
import { newHandle } from '../../src/oauth/handles.js';

const ISSUER = 'https://issuer.example';
const NOW = Date.UTC(2030, 0, 1, 12, 0, 0);
const NOW_S = NOW / 1000;
const silent: Logger = { debug() {}, info() {}, warn() {}, error() {}, child: () => silent };

const config = resolveConfig({
  issuer: ISSUER,
  apiScopes: [{ name: 'orders.read' }, { name: 'orders.write' }, { name: 'stock.read' }, { name: 'misc' }],
  apiResources: [
    { name: 'https://orders.example', scopes: ['orders.read', 'orders.write'] },
    { name: 'https://stock.example', scopes: ['stock.read'] },
  ],
  identityResources: [{ name: 'openid', claims: ['sub'] }, { name: 'profile', claims: ['name'] }],
  clients: [
    {
      clientId: 'web', clientSecrets: [{ value: 'x' }], allowedGrantTypes: ['authorization_code', 'refresh_token'],
      allowedScopes: ['openid', 'profile', 'orders.read', 'orders.write', 'stock.read', 'misc'], allowOfflineAccess: true, accessTokenLifetime: 900,
      redirectUris: ['https://web.example/cb'],
    },
    { clientId: 'm2m', clientSecrets: [{ value: 'x' }], allowedGrantTypes: ['client_credentials'], allowedScopes: ['orders.read'], accessTokenType: 'reference' },
  ],
}, '/');
const web: Client = config.clients.find((c) => c.clientId === 'web')!;
const m2m: Client = config.clients.find((c) => c.clientId === 'm2m')!;
const alice = { kind: 'user', id: 'alice-sub', authTime: NOW_S - 30 } as const;

let keys: Map<string, SigningKey>;
beforeAll(async () => {
  keys = await signingKeys(['ES256', 'RS256']);
});

let store: Store;
let refreshTokens: RefreshTokenService;
let issuer: TokenIssuer;
beforeEach(() => {
  const clock = { now: () => NOW };
  store = createMemoryStore(clock);
  const keyRing = keyRingOf(keys);
  refreshTokens = createRefreshTokenService({ store, clock, logger: silent });
  issuer = createTokenIssuer({
    config, keyRing, store, clock, refreshTokens,
    idTokens: createIdTokenIssuer({
      config, keyRing, clock,
      resourceOwnerValidator: { validate: async () => undefined, findBySubject: async () => ({ subjectId: 'alice-sub', username: 'alice', claims: { name: 'Alice' } }) },
    }),
  });
});

function issue(grant: GrantSuccess, scopes: readonly string[], extra: Partial<IssueRequest> = {}) {
  return issuer.prepare({ client: web, grantType: 'authorization_code', grant, scopes, ...extra });
}

async function accessClaims(token: string): Promise<JWTPayload> {
  const { payload } = await jwtVerify(token, keys.get('ES256')!.publicKey, { issuer: ISSUER, typ: 'at+jwt', algorithms: ['ES256'], currentDate: new Date(NOW) });
  return payload;
}

describe('JWT access tokens (RFC 9068)', () => {
  it('are signed with the configured ES256 key, typ at+jwt, and say who, for whom, what and how long', async () => {
    const { response } = await issue({ subject: alice }, ['orders.read']);
    expect(decodeProtectedHeader(response.access_token)).toEqual({ alg: 'ES256', typ: 'at+jwt', kid: 'kid-ES256' });
    expect(await accessClaims(response.access_token)).toEqual({
      iss: ISSUER, sub: 'alice-sub', aud: 'https://orders.example', client_id: 'web', scope: 'orders.read',
      iat: NOW_S, nbf: NOW_S, exp: NOW_S + 900, jti: expect.any(String), auth_time: NOW_S - 30,
    });
    expect(response).toMatchObject({ token_type: 'Bearer', expires_in: 900, scope: 'orders.read' });
  });

  it("last the client's accessTokenLifetime", async () => {
    const { response } = await issue({ subject: alice }, ['orders.read'], { client: { ...web, accessTokenLifetime: 60 } });
    expect(response.expires_in).toBe(60);
    const claims = await accessClaims(response.access_token);
    expect(claims.exp! - claims.iat!).toBe(60);
  });

  it('name every API resource of the scopes as audience, or the issuer’s own resources when none', async () => {
    const both = await accessClaims((await issue({ subject: alice }, ['orders.read', 'stock.read'])).response.access_token);
    expect(both.aud).toEqual(['https://orders.example', 'https://stock.example']);
    const none = await accessClaims((await issue({ subject: alice }, ['misc'])).response.access_token);
    expect(none.aud).toBe(`${ISSUER}/resources`);
  });

  it("narrow the audience to the grant's audience", async () => {
    const claims = await accessClaims((await issue({ subject: alice, audience: ['https://stock.example'] }, ['orders.read', 'stock.read'])).response.access_token);
    expect(claims.aud).toBe('https://stock.example');
  });

  it('carry the target of a resource request (RFC 8707): its APIs as aud, its scopes in the token and the response', async () => {
    const { response } = await issue({ subject: alice }, ['openid', 'orders.read', 'stock.read'], { target: { audience: ['https://stock.example'], scopes: ['openid', 'stock.read'] } });
    expect(response.scope).toBe('openid stock.read');
    expect(await accessClaims(response.access_token)).toMatchObject({ aud: 'https://stock.example', scope: 'openid stock.read' });
  });

  it('name an API with a uri by its uri, whether a grant limits the audience by its name or its uri', async () => {
    const withUri = createTokenIssuer({
      config: resolveConfig({
        issuer: ISSUER, apiScopes: [{ name: 'billing.read' }, { name: 'stock.read' }],
        apiResources: [{ name: 'billing', uri: 'https://billing.example/', scopes: ['billing.read'] }, { name: 'stock', scopes: ['stock.read'] }],
      }, '/'),
      keyRing: keyRingOf(keys), store, clock: { now: () => NOW }, refreshTokens, idTokens: { issue: async () => 'unused' },
    });
    const token = async (audience?: string[]) => accessClaims((await withUri.prepare({
      client: web, grantType: 'client_credentials', grant: { subject: { kind: 'client', id: 'web' }, ...(audience ? { audience } : {}) }, scopes: ['billing.read', 'stock.read'],
    })).response.access_token);
    expect((await token()).aud).toEqual(['https://billing.example/', 'stock']);
    expect((await token(['billing'])).aud).toBe('https://billing.example/');
    expect((await token(['https://billing.example/'])).aud).toBe('https://billing.example/');
  });

  it("carry a grant's extra claims but never let them override a registered claim", async () => {
    const grant: GrantSuccess = { subject: alice, claims: { tenant: 'acme', sub: 'mallory', iss: 'https://evil.example', exp: 9_999_999_999, scope: 'admin', cnf: { jkt: 'x' } } };
    const claims = await accessClaims((await issue(grant, ['orders.read'])).response.access_token);
    expect(claims).toMatchObject({ tenant: 'acme', sub: 'alice-sub', iss: ISSUER, exp: NOW_S + 900, scope: 'orders.read' });
    expect(claims).not.toHaveProperty('cnf');
  });

  it('have no auth_time for a client acting for itself', async () => {
    const claims = await accessClaims((await issue({ subject: { kind: 'client', id: 'web' } }, ['orders.read'])).response.access_token);
    expect(claims.sub).toBe('web');
    expect(claims).not.toHaveProperty('auth_time');
  });

  it('are bound to a DPoP key (token_type DPoP, cnf.jkt) or a certificate (cnf x5t#S256, still Bearer)', async () => {
    const dpop = (await issue({ subject: alice }, ['orders.read'], { cnf: { jkt: 'thumbprint-1' } })).response;
    expect(dpop.token_type).toBe('DPoP');
    expect((await accessClaims(dpop.access_token)).cnf).toEqual({ jkt: 'thumbprint-1' });
    const mtls = (await issue({ subject: alice }, ['orders.read'], { cnf: { 'x5t#S256': 'cert-thumbprint' } })).response;
    expect(mtls.token_type).toBe('Bearer');
    expect((await accessClaims(mtls.access_token)).cnf).toEqual({ 'x5t#S256': 'cert-thumbprint' });
  });
});

describe('reference access tokens', () => {
  it('are an opaque handle whose claims are kept in a record to store', async () => {
    const { response, records } = await issuer.prepare({ client: m2m, grantType: 'client_credentials', grant: { subject: { kind: 'client', id: 'm2m' } }, scopes: ['orders.read'] });
    expect(response.access_token.split('.')).toHaveLength(1);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ key: response.access_token, type: 'reference_token', clientId: 'm2m', subjectId: 'm2m', expiresAt: NOW + 3600_000 });
    expect(JSON.parse(records[0]!.data)).toMatchObject({ iss: ISSUER, sub: 'm2m', client_id: 'm2m', scope: 'orders.read', aud: 'https://orders.example' });
  });
});

describe('refresh tokens and ID tokens', () => {
  it('come with a user token that asked for offline_access and openid', async () => {
    const { response, records } = await issue({ subject: alice, idToken: { nonce: 'n1' } }, ['openid', 'orders.read', 'offline_access']);
    expect(response.refresh_token).toEqual(expect.any(String));
    expect(records.map((r) => r.type).sort()).toEqual(['refresh_family', 'refresh_token']);
    const { payload } = await jwtVerify(response.id_token!, keys.get('RS256')!.publicKey, { issuer: ISSUER, audience: 'web', currentDate: new Date(NOW) });
    expect(payload).toMatchObject({ sub: 'alice-sub', nonce: 'n1', auth_time: NOW_S - 30, at_hash: expect.any(String) });
  });

  it('keep the whole grant in the family when the access token is for one of its APIs (RFC 8707 §2.2)', async () => {
    const { records } = await issue(
      { subject: alice, audience: ['https://stock.example'], grantedAudience: ['https://orders.example', 'https://stock.example'] },
      ['orders.read', 'stock.read', 'offline_access'],
      { target: { audience: ['https://stock.example'], scopes: ['stock.read', 'offline_access'] } },
    );
    const family = records.find((r) => r.type === 'refresh_family')!;
    expect(JSON.parse(family.data)).toEqual({ scopes: ['orders.read', 'stock.read', 'offline_access'], audience: ['https://orders.example', 'https://stock.example'] });
  });

  it('do not come without offline_access and openid', async () => {
    const { response, records } = await issue({ subject: alice }, ['orders.read']);
    expect(response).not.toHaveProperty('refresh_token');
    expect(response).not.toHaveProperty('id_token');
    expect(records).toEqual([]);
  });

  it('never come with a client-only token, whatever its scopes', async () => {
    const { response } = await issue({ subject: { kind: 'client', id: 'web' } }, ['openid', 'orders.read', 'offline_access']);
    expect(response).not.toHaveProperty('refresh_token');
    expect(response).not.toHaveProperty('id_token');
  });

  it('do not give a refresh token to a client without allowOfflineAccess', async () => {
    const { response } = await issue({ subject: alice }, ['orders.read', 'offline_access'], { client: { ...web, allowOfflineAccess: false } });
    expect(response).not.toHaveProperty('refresh_token');
  });
});

describe('refresh token rotation', () => {
  async function firstRefreshToken() {
    const { response, records } = await issue({ subject: alice }, ['orders.read', 'offline_access']);
    for (const record of records) await store.add(record);
    return { handle: response.refresh_token!, family: records.find((r) => r.type === 'refresh_family')! };
  }

  it('takes the family’s grant and end from the redeemed token, without reading the family record again', async () => {
    const { handle, family } = await firstRefreshToken();
    const redeemed = await refreshTokens.redeem(handle, web);
    expect(redeemed.familyEnds).toBe(family.expiresAt);
    const reads: string[] = [];
    const get = store.get.bind(store);
    store.get = async (key) => (reads.push(key), get(key));

    const success = refreshTokens.continueFamily(redeemed, { subject: redeemed.subject, scopes: ['orders.read'], consumes: handle });
    // No sliding lifetime: the new token lives exactly to the family's end.
    const { records } = await issuer.prepare({ client: { ...web, slidingRefreshTokenLifetime: 0 }, grantType: 'refresh_token', grant: success, scopes: ['orders.read'] });

    expect(reads).toEqual([]);
    const next = records.find((r) => r.type === 'refresh_token')!;
    expect(next).toMatchObject({ sessionId: family.sessionId, expiresAt: family.expiresAt });
    expect(JSON.parse(next.data)).toMatchObject({ scopes: ['orders.read', 'offline_access'], familyEnds: family.expiresAt });
  });

  it('reads the family record for a token written without the family’s end (an older node’s), and refuses when the family is gone', async () => {
    const { handle, family } = await firstRefreshToken();
    const { familyEnds: _, ...older } = await refreshTokens.redeem(handle, web);
    const success = refreshTokens.continueFamily(older, { subject: older.subject, scopes: ['orders.read'], consumes: handle });

    const { records } = await issuer.prepare({ client: web, grantType: 'refresh_token', grant: success, scopes: ['orders.read'] });
    expect(JSON.parse(records.find((r) => r.type === 'refresh_token')!.data)).toMatchObject({ scopes: ['orders.read', 'offline_access'], familyEnds: family.expiresAt });

    await store.remove(family.key);
    await expect(issuer.prepare({ client: web, grantType: 'refresh_token', grant: success, scopes: ['orders.read'] })).rejects.toMatchObject({ code: 'invalid_grant' });
  });
});

describe('custom response members', () => {
  it('are added but never override a standard member', async () => {
    const { response } = await issue({ subject: alice }, ['orders.read'], {
      customResponse: { issued_token_type: 'urn:ietf:params:oauth:token-type:access_token', access_token: 'forged', token_type: 'N_A', expires_in: 1, scope: 'admin' },
    });
    expect(response.issued_token_type).toBe('urn:ietf:params:oauth:token-type:access_token');
    expect(response).toMatchObject({ token_type: 'Bearer', expires_in: 900, scope: 'orders.read' });
    expect(response.access_token).not.toBe('forged');
  });
});

describe('prepare, then commit', () => {
  // The token endpoint commits the prepared records with the one-time grant it spends; here, alone.
  const issueAndStore = async (request: IssueRequest) => {
    const { response, records } = await issuer.prepare(request);
    await store.commit({ add: records });
    return response;
  };

  it('prepare stores nothing; committing its records makes the tokens live', async () => {
    const prepared = await issue({ subject: alice }, ['orders.read', 'offline_access']);
    expect(prepared.records.length).toBeGreaterThan(0);
    for (const record of prepared.records) expect(await store.get(record.key)).toBeUndefined();
    const issued = await issueAndStore({ client: web, grantType: 'authorization_code', grant: { subject: alice }, scopes: ['orders.read', 'offline_access'] });
    expect(await refreshTokens.redeem(issued.refresh_token!, web)).toMatchObject({ scopes: ['orders.read', 'offline_access'] });
    const reference = await issueAndStore({ client: m2m, grantType: 'client_credentials', grant: { subject: { kind: 'client', id: 'm2m' } }, scopes: ['orders.read'] });
    expect(await store.get(reference.access_token)).toMatchObject({ type: 'reference_token', clientId: 'm2m' });
  });
});

// Issue 40: the family format follows the node's choice (plain before the contract), a spent
// code's family is the one its record names, and a refresh finds its family record in either.
describe.each([['plain', false], ['time-ordered', true]])('grant families written %s', (_format, timeOrdered) => {
  function issuerWith(): { issuer: TokenIssuer; store: Store } {
    const clock = { now: () => NOW };
    const store = createMemoryStore(clock);
    const keyRing = keyRingOf(keys);
    const idTokens = createIdTokenIssuer({ config, keyRing, clock, resourceOwnerValidator: { validate: async () => undefined, findBySubject: async () => undefined } });
    const issuer = createTokenIssuer({ config, keyRing, store, clock, refreshTokens: createRefreshTokenService({ store, clock, logger: silent }), idTokens, families: { timeOrdered } });
    return { issuer, store };
  }
  const offline = ['orders.read', 'offline_access'];

  it('a new family: a UUID before the contract, time then 128 random bits after; its record under the format\'s key', async () => {
    const { issuer } = issuerWith();
    const { records } = await issuer.prepare({ client: web, grantType: 'password', grant: { subject: alice }, scopes: offline });
    const family = records.find((r) => r.type === 'refresh_family')!;
    const id = family.sessionId!;
    expect(id).toMatch(timeOrdered ? /^[0-9a-f]{12}[\w-]{22}$/ : /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(family.key).toBe(timeOrdered ? `${id.slice(0, 12)}.family:${id}` : `family:${id}`);
    expect(records.find((r) => r.type === 'refresh_token')!.sessionId).toBe(id);
  });

  it('a spent grant without a family of its own: derived from its handle in the node\'s format', async () => {
    const { issuer } = issuerWith();
    const deviceCode = newHandle();
    const { records } = await issuer.prepare({ client: web, grantType: 'device_code', grant: { subject: alice, consumes: deviceCode }, scopes: offline });
    expect(records.find((r) => r.type === 'refresh_token')!.sessionId).toBe(familyOfSpentGrant(deviceCode, timeOrdered));
  });

  it('a code: the family its record names, whatever this node writes', async () => {
    const { issuer } = issuerWith();
    const code = newHandle();
    const named = familyOfSpentGrant(code, !timeOrdered);
    const { records } = await issuer.prepare({ client: web, grantType: 'authorization_code', grant: { subject: alice, consumes: code, consumesFamily: named }, scopes: offline });
    expect(records.map((r) => r.sessionId)).toEqual([named, named]);
  });

  it('a refresh continues the family, finding its record under either format\'s key', async () => {
    const { issuer, store } = issuerWith();
    for (const familyOf of [familyOfSpentGrant(newHandle(), true), familyOfSpentGrant(newHandle(), false)]) {
      const first = await issuer.prepare({ client: web, grantType: 'authorization_code', grant: { subject: alice, consumes: 'c', consumesFamily: familyOf }, scopes: offline });
      for (const record of first.records) await store.add(record);
      const next = await issuer.prepare({ client: web, grantType: 'refresh_token', grant: { subject: alice, sessionId: familyOf }, scopes: offline });
      expect(next.records.map((r) => [r.type, r.sessionId])).toEqual([['refresh_token', familyOf]]);
    }
  });
});
