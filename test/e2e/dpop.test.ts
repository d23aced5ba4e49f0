/**
 * DPoP at the token endpoint (RFC 9449 §4–§6, issue 17): a valid proof binds the tokens to its
 * key; every bad proof is 400 `invalid_dpop_proof` with the same description and its reason in
 * the log; `requireDPoP`; public clients' refresh tokens bound to the key (§5); introspection
 * reports `cnf`; discovery and CORS.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { decodeJwt } from 'jose';
import { hashSecret } from '../../src/sdk/hash.js';
import { basic, postForm, startServer, type TestServer } from '../support/server.js';
import { rawRequest } from '../support/raw-http.js';
import { dpopKey, hmacProof, type DpopKey } from '../support/dpop.js';
import { alice, auth, configWith } from '../fixtures/grant-plugins/world.js';

const secretClient = (clientId: string, rest: Record<string, unknown> = {}) => ({
  clientId,
  clientSecrets: [{ value: hashSecret(`${clientId}-secret`) }],
  allowedGrantTypes: ['client_credentials'],
  allowedScopes: ['api1.read'],
  ...rest,
});

let server: TestServer;
let key: DpopKey;
let tokenUrl: string;
beforeAll(async () => {
  key = await dpopKey();
  server = await startServer(configWith([
    secretClient('dpop-m2m', { allowedCorsOrigins: ['https://app.example'] }),
    secretClient('dpop-ref', { accessTokenType: 'reference' }),
    secretClient('dpop-required', { requireDPoP: true }),
    {
      clientId: 'spa', requireClientSecret: false, allowedGrantTypes: ['password', 'refresh_token'],
      allowedScopes: ['openid', 'api1.read'], allowOfflineAccess: true,
    },
  ]));
  tokenUrl = `${server.url}/connect/token`;
});
afterAll(() => server?.close());

const clientCredentials = (clientId: string, headers: Record<string, string> = {}) =>
  postForm(tokenUrl, { grant_type: 'client_credentials', scope: 'api1.read' }, { ...auth(clientId), ...headers });

const invalidProof = { error: 'invalid_dpop_proof', error_description: 'The DPoP proof is invalid.' };

/** The reason the log gave for the last refused proof. */
function lastRefusalDetail(): unknown {
  return server.logs.filter((l) => l.msg === 'request rejected' && l.error === 'invalid_dpop_proof').at(-1)?.detail;
}

describe('a valid proof binds the access token', () => {
  it('answers token_type DPoP with cnf.jkt, the RFC 7638 thumbprint of the proof key, in the JWT', async () => {
    const res = await clientCredentials('dpop-m2m', { DPoP: key.proof({ htu: tokenUrl }) });
    expect(res.status).toBe(200);
    expect(res.body.token_type).toBe('DPoP');
    expect(decodeJwt(res.body.access_token as string).cnf).toEqual({ jkt: key.jkt });
  });

  it.each(['RS256', 'PS256', 'EdDSA'] as const)('accepts a proof signed with %s', async (alg) => {
    const other = await dpopKey(alg);
    const res = await clientCredentials('dpop-m2m', { DPoP: other.proof({ htu: tokenUrl }) });
    expect(res.status).toBe(200);
    expect(decodeJwt(res.body.access_token as string).cnf).toEqual({ jkt: other.jkt });
  });

  it('ignores the query and fragment of htu (RFC 9449 §4.3 check 9)', async () => {
    const res = await clientCredentials('dpop-m2m', { DPoP: key.proof({ htu: `${tokenUrl}?x=1#f` }) });
    expect(res.status).toBe(200);
  });

  it('without a proof the token stays a Bearer token with no cnf', async () => {
    const res = await clientCredentials('dpop-m2m');
    expect(res.body.token_type).toBe('Bearer');
    expect(decodeJwt(res.body.access_token as string).cnf).toBeUndefined();
  });

  it('keeps cnf with a reference token; introspection reports it and token_type DPoP', async () => {
    const res = await clientCredentials('dpop-ref', { DPoP: key.proof({ htu: tokenUrl }) });
    expect(res.body.token_type).toBe('DPoP');
    const introspected = await postForm(`${server.url}/connect/introspect`, { token: res.body.access_token as string }, { authorization: basic('api1', 'api1-secret') });
    expect(introspected.body).toMatchObject({ active: true, token_type: 'DPoP', cnf: { jkt: key.jkt } });
  });

  it('introspection reports cnf and token_type DPoP for a bound JWT too, and Bearer without cnf for an unbound one', async () => {
    const bound = await clientCredentials('dpop-m2m', { DPoP: key.proof({ htu: tokenUrl }) });
    const unbound = await clientCredentials('dpop-m2m');
    const introspect = (token: unknown) => postForm(`${server.url}/connect/introspect`, { token: token as string }, { authorization: basic('api1', 'api1-secret') });
    expect((await introspect(bound.body.access_token)).body).toMatchObject({ active: true, token_type: 'DPoP', cnf: { jkt: key.jkt } });
    const plain = (await introspect(unbound.body.access_token)).body;
    expect(plain).toMatchObject({ active: true, token_type: 'Bearer' });
    expect(plain).not.toHaveProperty('cnf');
  });
});

describe('every bad proof is 400 invalid_dpop_proof, with the reason in the log only', () => {
  const now = () => Math.floor(Date.now() / 1000);
  const cases: Array<[string, () => string | Promise<string>, string]> = [
    ['a wrong typ', () => key.proof({ htu: tokenUrl, header: { typ: 'JWT' } }), 'typ is not dpop+jwt'],
    ['a symmetric alg (HS256)', () => hmacProof(key, tokenUrl), 'alg "HS256" is not accepted'],
    ['alg none', () => key.proof({ htu: tokenUrl, header: { alg: 'none' } }), 'alg "none" is not accepted'],
    ['a jwk with private members', () => key.proof({ htu: tokenUrl, header: { jwk: key.privateKey.export({ format: 'jwk' }) } }), 'jwk has the private member "d"'],
    ['no jwk', () => key.proof({ htu: tokenUrl, header: { jwk: undefined } }), 'jwk is missing or not an object'],
    ['another htm', () => key.proof({ htu: tokenUrl, htm: 'GET' }), 'htm does not match the request method'],
    ['another htu', () => key.proof({ htu: `${server.url}/connect/introspect` }), 'htu does not match the endpoint URL'],
    ['an htu of another host', () => key.proof({ htu: 'https://evil.example/connect/token' }), 'htu does not match the endpoint URL'],
    ['an iat too old', () => key.proof({ htu: tokenUrl, iat: now() - 301 }), 'iat is too old'],
    ['an iat in the future', () => key.proof({ htu: tokenUrl, iat: now() + 60 }), 'iat is in the future'],
    ['no jti', () => key.proof({ htu: tokenUrl, claims: { jti: undefined } }), 'jti is missing or not a string of 1 to 256 characters'],
    ['a bad signature', async () => {
      const other = await dpopKey();
      const [h, p] = key.proof({ htu: tokenUrl }).split('.');
      return `${h}.${p}.${other.proof({ htu: tokenUrl }).split('.')[2]}`;
    }, 'signature does not verify with the proof jwk'],
    ['not a JWT', () => 'not-a-jwt', 'malformed proof: not three dot-separated parts'],
    ['two proofs folded into one header', () => `${key.proof({ htu: tokenUrl })}, ${key.proof({ htu: tokenUrl })}`, 'more than one DPoP header'],
  ];
  it.each(cases)('%s', async (_name, make, reason) => {
    const res = await clientCredentials('dpop-m2m', { DPoP: await make() });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(invalidProof);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(lastRefusalDetail()).toBe(reason);
  });

  it('a replayed jti, on a second request with the same proof', async () => {
    const proof = key.proof({ htu: tokenUrl, jti: randomUUID() });
    expect((await clientCredentials('dpop-m2m', { DPoP: proof })).status).toBe(200);
    const replay = await clientCredentials('dpop-m2m', { DPoP: proof });
    expect(replay.status).toBe(400);
    expect(replay.body).toEqual(invalidProof);
    expect(lastRefusalDetail()).toBe('jti was already used (replay)');
  });

  it('two DPoP header lines', async () => {
    const body = 'grant_type=client_credentials&scope=api1.read';
    const { host } = new URL(server.url);
    const reply = await rawRequest(server.url, [
      'POST /connect/token HTTP/1.1', `Host: ${host}`, `Authorization: ${auth('dpop-m2m').authorization}`,
      'Content-Type: application/x-www-form-urlencoded', `Content-Length: ${body.length}`,
      `DPoP: ${key.proof({ htu: tokenUrl })}`, `DPoP: ${key.proof({ htu: tokenUrl })}`, 'Connection: close', '', body,
    ].join('\r\n'));
    expect(reply.status).toBe(400);
    expect(JSON.parse(reply.body)).toEqual(invalidProof);
  });

  it('never writes the proof to the log', async () => {
    const proof = key.proof({ htu: tokenUrl, header: { typ: 'JWT' } });
    await clientCredentials('dpop-m2m', { DPoP: proof });
    expect(server.logText()).not.toContain(proof.split('.')[2]);
  });
});

describe('requireDPoP', () => {
  it('refuses a request without a proof with invalid_request', async () => {
    const res = await clientCredentials('dpop-required');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_request', error_description: 'A DPoP proof is required for this client.' });
  });

  it('issues a DPoP token with one', async () => {
    const res = await clientCredentials('dpop-required', { DPoP: key.proof({ htu: tokenUrl }) });
    expect(res.status).toBe(200);
    expect(res.body.token_type).toBe('DPoP');
  });
});

describe('a public client refresh token is bound to the DPoP key (RFC 9449 §5)', () => {
  async function spaTokens(): Promise<Record<string, unknown>> {
    const res = await postForm(tokenUrl, {
      grant_type: 'password', client_id: 'spa', username: alice.username, password: alice.password, scope: 'api1.read offline_access',
    }, { DPoP: key.proof({ htu: tokenUrl }) });
    expect(res.status).toBe(200);
    expect(res.body.token_type).toBe('DPoP');
    return res.body;
  }
  const refresh = (refreshToken: string, headers: Record<string, string>) =>
    postForm(tokenUrl, { grant_type: 'refresh_token', client_id: 'spa', refresh_token: refreshToken }, headers);
  const refused = { error: 'invalid_grant', error_description: 'The refresh token is bound to a DPoP key this request does not prove.' };

  it('refreshes with a proof of the same key, and the new refresh token stays bound', async () => {
    const first = await spaTokens();
    const second = await refresh(first.refresh_token as string, { DPoP: key.proof({ htu: tokenUrl }) });
    expect(second.status).toBe(200);
    expect(second.body.token_type).toBe('DPoP');
    expect(decodeJwt(second.body.access_token as string).cnf).toEqual({ jkt: key.jkt });
    const third = await refresh(second.body.refresh_token as string, {});
    expect(third.status).toBe(400);
    expect(third.body).toEqual(refused);
  });

  it('refuses a refresh without a proof', async () => {
    const res = await refresh((await spaTokens()).refresh_token as string, {});
    expect(res.status).toBe(400);
    expect(res.body).toEqual(refused);
  });

  it('refuses a refresh with a proof of another key', async () => {
    const other = await dpopKey();
    const res = await refresh((await spaTokens()).refresh_token as string, { DPoP: other.proof({ htu: tokenUrl }) });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(refused);
  });
});

describe('discovery and CORS', () => {
  it('lists dpop_signing_alg_values_supported', async () => {
    const doc = (await (await fetch(`${server.url}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    expect(doc.dpop_signing_alg_values_supported).toEqual(['ES256', 'PS256', 'RS256', 'EdDSA', 'Ed25519']);
  });

  it('allows the DPoP request header and exposes DPoP-Nonce at the token endpoint', async () => {
    const preflight = await fetch(tokenUrl, {
      method: 'OPTIONS', headers: { origin: 'https://app.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'dpop' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toBe('Authorization, Content-Type, DPoP');
    const res = await clientCredentials('dpop-m2m', { origin: 'https://app.example', DPoP: key.proof({ htu: tokenUrl }) });
    expect(res.headers.get('access-control-expose-headers')).toBe('Retry-After, WWW-Authenticate, X-Request-Id, DPoP-Nonce');
  });
});

describe('htu is the public URL of the endpoint: the issuer, not the address the request reached', () => {
  let proxied: TestServer;
  const publicToken = 'https://id.example.test/connect/token';
  beforeAll(async () => {
    proxied = await startServer(configWith([secretClient('dpop-m2m')], { issuer: 'https://id.example.test', trustedProxies: ['127.0.0.1'] }));
  });
  afterAll(() => proxied?.close());
  const request = (proof: string, headers: Record<string, string> = {}) =>
    postForm(`${proxied.url}/connect/token`, { grant_type: 'client_credentials', scope: 'api1.read' }, { ...auth('dpop-m2m'), DPoP: proof, ...headers });

  it('accepts a proof for the issuer URL, reached through a proxy at another address', async () => {
    const res = await request(key.proof({ htu: publicToken }), { 'x-forwarded-for': '203.0.113.7', 'x-forwarded-proto': 'https' });
    expect(res.status).toBe(200);
    expect(res.body.token_type).toBe('DPoP');
  });

  it('refuses a proof for the address the request reached, whatever Host and X-Forwarded-Host say', async () => {
    const res = await request(key.proof({ htu: `${proxied.url}/connect/token` }), { 'x-forwarded-host': new URL(proxied.url).host });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(invalidProof);
  });
});
