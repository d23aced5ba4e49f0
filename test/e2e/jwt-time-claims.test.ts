/**
 * JWT time claims (RFC 7519 §2 NumericDate) out of range, from a signer the service trusts (issue
 * 22): a client's own key for private_key_jwt, the service's own key for delegation and token
 * exchange subject tokens. A `nbf` of 9e12 once became a date JavaScript cannot represent and the
 * request ended in 500; every such value is now a plain refusal of the credential.
 */
import { randomUUID } from 'node:crypto';
import { importJWK, SignJWT, type JWK, type JWTPayload } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryStore } from '../../src/store/memory-store.js';
import { postForm, startServer, type TestServer } from '../support/server.js';
import { makeKey, publicJwk, type TestKey } from '../plugins/private-key-jwt/helpers.js';
import {
  accessClaims, accessTokenType, baseConfig, clients, delegate, invalidGrant, tokenExchange, tokenRequest, userToken,
} from '../fixtures/grant-plugins/world.js';

const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
const store = createMemoryStore({ now: () => Date.now() });
let server: TestServer;
let clientKey: TestKey;

beforeAll(async () => {
  clientKey = await makeKey('P-256');
  server = await startServer(
    {
      ...baseConfig,
      clients: [
        ...Object.values(clients),
        {
          clientId: 'key-app',
          clientSecrets: [{ type: 'JsonWebKey', value: JSON.stringify(publicJwk(clientKey)) }],
          allowedGrantTypes: ['client_credentials'],
          allowedScopes: ['api1.read'],
        },
      ],
    },
    { store },
  );
});
afterAll(() => server.close());

const nowS = () => Math.floor(Date.now() / 1000);

/** Values no NumericDate may take: beyond what a JavaScript Date holds, non-finite in spirit, negative, or not numbers. */
const outOfRange: Array<[string, Record<string, unknown>]> = [
  ['nbf 9e12 (past the largest JavaScript date)', { nbf: 9e12 }],
  ['iat 9e12', { iat: 9e12 }],
  ['exp -9e12', { exp: -9e12 }],
  ['exp 1e300', { exp: 1e300 }],
  ['iat 1e300', { iat: 1e300 }],
  ['nbf -1e300', { nbf: -1e300 }],
  ['exp 8.64e12 + 1', { exp: 8.64e12 + 1 }],
  ['exp in the year 10000', { exp: 253_402_300_800 }],
  ['a negative iat', { iat: -1 }],
  ['exp as a numeric string', { exp: String(nowS() + 60) }],
];

describe('private_key_jwt: an out-of-range time claim is 401 invalid_client, never 500', () => {
  async function assertion(overrides: Record<string, unknown>): Promise<string> {
    const iat = nowS();
    const claims: JWTPayload = { iss: 'key-app', sub: 'key-app', aud: server.url, iat, exp: iat + 60, jti: randomUUID(), ...overrides };
    return new SignJWT(claims).setProtectedHeader({ alg: 'ES256' }).sign(clientKey.privateKey);
  }
  const authenticate = async (overrides: Record<string, unknown>) =>
    postForm(`${server.url}/connect/token`, {
      grant_type: 'client_credentials',
      client_assertion_type: JWT_BEARER,
      client_assertion: await assertion(overrides),
    });

  it('accepts the well-formed control, and a fractional NumericDate (RFC 7519 §2 allows one)', async () => {
    expect((await authenticate({})).status).toBe(200);
    expect((await authenticate({ iat: nowS() - 0.5, exp: nowS() + 59.5 })).status).toBe(200);
  });

  it.each(outOfRange)('%s', async (_case, overrides) => {
    const reply = await authenticate(overrides);
    expect({ status: reply.status, body: reply.body }).toEqual({
      status: 401,
      body: { error: 'invalid_client', error_description: 'Client authentication failed.' },
    });
    const line = server.logs.find((l) => l.reqId === reply.headers.get('x-request-id') && l.msg === 'request rejected');
    expect(line?.detail).toMatch(/(exp|nbf|iat) is not a NumericDate/);
  });
});

/** Delegation answers invalid_grant; token exchange invalid_request, as RFC 8693 §2.2.2 asks for an invalid subject_token. */
describe('delegation and token exchange: a subject token with an out-of-range time claim is refused', () => {
  /** Re-signs a real user token's claims with the service's own signing key, so only the time claims differ. */
  async function userTokenWith(overrides: Record<string, unknown>): Promise<string> {
    const user = await userToken(server, { scope: 'api1.read' });
    const [record] = (await store.listSigningKeys()).filter((k) => k.alg === 'ES256');
    const key = await importJWK(JSON.parse(record!.privateJwk) as JWK, 'ES256');
    return new SignJWT({ ...accessClaims(user.access_token), ...overrides })
      .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: record!.kid })
      .sign(key);
  }
  const exchange = (token: string) =>
    tokenRequest(server, 'exchanger', { grant_type: tokenExchange, subject_token: token, subject_token_type: accessTokenType, scope: 'backend.read' });
  const introspect = (token: string) =>
    postForm(`${server.url}/connect/introspect`, { token }, { authorization: `Basic ${Buffer.from('api1:api1-secret').toString('base64')}` });

  it('the control, re-signed unchanged, is accepted by both grants and active at introspection', async () => {
    const token = await userTokenWith({});
    expect((await delegate(server, token)).status).toBe(200);
    expect((await exchange(token)).status).toBe(200);
    expect((await introspect(token)).body).toMatchObject({ active: true });
  });

  it.each([...outOfRange, ['auth_time 1e300', { auth_time: 1e300 }] as [string, Record<string, unknown>]])('%s', async (_case, overrides) => {
    const token = await userTokenWith(overrides);
    const delegated = await delegate(server, token);
    expect({ status: delegated.status, body: delegated.body }).toEqual({ status: 400, body: invalidGrant('The token is invalid.') });
    const exchanged = await exchange(token);
    expect({ status: exchanged.status, body: exchanged.body }).toEqual({ status: 400, body: { error: 'invalid_request', error_description: 'The subject_token is invalid.' } });
    expect(await introspect(token)).toMatchObject({ status: 200, body: { active: false } });
  });
});
