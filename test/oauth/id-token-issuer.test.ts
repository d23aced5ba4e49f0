/**
 * ID tokens (OIDC Core §2) with plain values and real keys: the claims a relying party checks,
 * the user's claims released by the granted scopes only, the lifetime, the client's algorithm
 * (RS256 when it named none) and `at_hash` under that algorithm's hash. Verified with jose.
 */
import { createHash } from 'node:crypto';
import { decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/resolve.js';
import { createIdTokenIssuer, defaultIdTokenAlgorithm, idTokenLifetime, type IdTokenIssuer } from '../../src/oauth/id-token-issuer.js';
import type { SigningKey } from '../../src/oauth/keys/signing-key.js';
import type { Client, ResourceOwner } from '../../src/sdk/index.js';
import { keyRingOf, signingKeys } from './signing-keys.js';

const ISSUER = 'https://issuer.example';
const NOW = Date.UTC(2030, 0, 1, 12, 0, 0);
const NOW_S = NOW / 1000;
const config = resolveConfig({
  issuer: ISSUER,
  signing: { idTokenAlgorithms: ['RS256', 'ES256', 'ES384', 'EdDSA'] },
  identityResources: [
    { name: 'openid', claims: ['sub'] },
    { name: 'profile', claims: ['name', 'sub'] },
    { name: 'email', claims: ['email'] },
  ],
  clients: [{ clientId: 'web', clientSecrets: [{ value: 'x' }], allowedGrantTypes: ['authorization_code'], allowedScopes: ['openid', 'profile', 'email'], redirectUris: ['https://web.example/cb'] }],
}, '/');
const web: Client = config.clients[0]!;
const withAlg = (alg: string): Client => ({ ...web, allowedIdentityTokenSigningAlgorithms: [alg] });

const alice: ResourceOwner = { subjectId: 'alice-sub', username: 'alice', claims: { name: 'Alice Smith', email: 'alice@example.com', sub: 'someone-else' } };
const user = { kind: 'user', id: 'alice-sub', authTime: NOW_S - 60 } as const;

let keys: Map<string, SigningKey>;
let stranger: SigningKey;
let issuer: IdTokenIssuer;
beforeAll(async () => {
  keys = await signingKeys(['RS256', 'ES256', 'ES384', 'EdDSA']);
  stranger = (await signingKeys(['ES256'])).get('ES256')!;
  issuer = createIdTokenIssuer({
    config,
    keyRing: keyRingOf(keys),
    clock: { now: () => NOW },
    resourceOwnerValidator: {
      validate: () => Promise.reject(new Error('not used')),
      findBySubject: async (id) => (id === alice.subjectId ? alice : undefined),
    },
  });
});

/** Verifies as a relying party would: signature with the published key, issuer, audience, at NOW. */
async function verified(token: string, alg: string, audience = 'web'): Promise<JWTPayload> {
  const { payload } = await jwtVerify(token, keys.get(alg)!.publicKey, { issuer: ISSUER, audience, algorithms: [alg], currentDate: new Date(NOW) });
  return payload;
}

const leftHalf = (hash: string, text: string): string => {
  const digest = createHash(hash).update(text).digest();
  return digest.subarray(0, digest.length / 2).toString('base64url');
};

describe('ID token claims', () => {
  it('carries iss, sub, aud, iat, exp (5 minutes), auth_time, a jti, nonce and sid', async () => {
    const token = await issuer.issue({ client: web, user, scopes: ['openid'], idToken: { nonce: 'n-0S6', sid: 'session-1' } });
    const claims = await verified(token, 'RS256');
    expect(claims).toEqual({
      iss: ISSUER, sub: 'alice-sub', aud: 'web', iat: NOW_S, exp: NOW_S + 300, auth_time: NOW_S - 60, nonce: 'n-0S6', sid: 'session-1', jti: expect.any(String),
    });
    expect(idTokenLifetime).toBe(300);
  });

  it('gives each ID token its own jti', async () => {
    const a = await verified(await issuer.issue({ client: web, user, scopes: ['openid'] }), 'RS256');
    const b = await verified(await issuer.issue({ client: web, user, scopes: ['openid'] }), 'RS256');
    expect(a.jti).not.toBe(b.jti);
  });

  it("releases the user's claims of the granted scopes only, and never the user's own sub", async () => {
    const profile = await verified(await issuer.issue({ client: web, user, scopes: ['openid', 'profile'] }), 'RS256');
    expect(profile).toMatchObject({ sub: 'alice-sub', name: 'Alice Smith' });
    expect(profile).not.toHaveProperty('email');
    const email = await verified(await issuer.issue({ client: web, user, scopes: ['openid', 'email'] }), 'RS256');
    expect(email).toMatchObject({ email: 'alice@example.com' });
    expect(email).not.toHaveProperty('name');
  });

  it('issues a token with only the standard claims for a subject the user store does not know', async () => {
    const token = await issuer.issue({ client: web, user: { kind: 'user', id: 'ghost', authTime: NOW_S }, scopes: ['openid', 'profile', 'email'] });
    const claims = await verified(token, 'RS256');
    expect(claims.sub).toBe('ghost');
    expect(claims).not.toHaveProperty('name');
  });

  it('leaves out nonce, sid and at_hash when there are none', async () => {
    const claims = await verified(await issuer.issue({ client: web, user, scopes: ['openid'] }), 'RS256');
    expect(claims).not.toHaveProperty('nonce');
    expect(claims).not.toHaveProperty('sid');
    expect(claims).not.toHaveProperty('at_hash');
  });

  it('is not accepted after its five minutes', async () => {
    const token = await issuer.issue({ client: web, user, scopes: ['openid'] });
    await expect(jwtVerify(token, keys.get('RS256')!.publicKey, { currentDate: new Date(NOW + 301_000), clockTolerance: 0 })).rejects.toMatchObject({ code: 'ERR_JWT_EXPIRED' });
  });
});

describe('algorithm and at_hash', () => {
  it('signs with RS256 for a client that named no algorithm, with typ JWT and the key id', async () => {
    const token = await issuer.issue({ client: web, user, scopes: ['openid'] });
    expect(defaultIdTokenAlgorithm).toBe('RS256');
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'RS256', typ: 'JWT', kid: 'kid-RS256' });
  });

  it.each([
    ['RS256', 'sha256'],
    ['ES256', 'sha256'],
    ['ES384', 'sha384'],
    ['EdDSA', 'sha512'],
  ])("signs with the client's %s and hashes the access token for at_hash with %s (OIDC Core §3.1.3.6)", async (alg, hash) => {
    const accessToken = 'eyJ.access-token.example';
    const token = await issuer.issue({ client: withAlg(alg), user, scopes: ['openid'], accessToken });
    expect(decodeProtectedHeader(token)).toMatchObject({ alg, kid: `kid-${alg}` });
    const claims = await verified(token, alg);
    expect(claims.at_hash).toBe(leftHalf(hash, accessToken));
  });

  it('does not verify with another key', async () => {
    const token = await issuer.issue({ client: withAlg('ES256'), user, scopes: ['openid'] });
    await expect(jwtVerify(token, stranger.publicKey)).rejects.toMatchObject({ code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED' });
  });
});
