/**
 * The service's own protected resources honour DPoP binding (RFC 9449 §7, issue 17): UserInfo,
 * and delegation and token exchange when the incoming token is DPoP-bound. Also server nonces
 * (§8, §9): `use_dpop_nonce` with a `DPoP-Nonce` header, at the token endpoint and at UserInfo.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { postForm, startServer, type TestServer } from '../support/server.js';
import { dpopKey, type DpopKey } from '../support/dpop.js';
import { accessTokenType, alice, auth, baseConfig, tokenExchange } from '../fixtures/grant-plugins/world.js';

let server: TestServer;
let key: DpopKey;
let tokenUrl: string;
let userinfoUrl: string;
beforeAll(async () => {
  key = await dpopKey();
  server = await startServer(baseConfig);
  tokenUrl = `${server.url}/connect/token`;
  userinfoUrl = `${server.url}/connect/userinfo`;
});
afterAll(() => server?.close());

/** A user token of `web` bound to `key`. */
async function boundUserToken(scope = 'openid api1.read'): Promise<string> {
  const res = await postForm(tokenUrl, { grant_type: 'password', username: alice.username, password: alice.password, scope }, {
    ...auth('web'), DPoP: key.proof({ htu: tokenUrl }),
  });
  expect(res.body.token_type).toBe('DPoP');
  return res.body.access_token as string;
}

async function userinfo(headers: Record<string, string>, method = 'GET') {
  const res = await fetch(userinfoUrl, { method, headers });
  return { status: res.status, challenge: res.headers.get('www-authenticate'), body: (await res.json()) as Record<string, unknown> };
}

const algs = 'algs="ES256 PS256 RS256 EdDSA Ed25519"';

describe('UserInfo with a DPoP-bound token', () => {
  it('answers with the DPoP scheme and a proof of the key carrying ath, on GET and POST', async () => {
    const token = await boundUserToken();
    const get = await userinfo({ authorization: `DPoP ${token}`, DPoP: key.proof({ htu: userinfoUrl, htm: 'GET', accessToken: token }) });
    expect(get.status).toBe(200);
    expect(get.body).toEqual({ sub: alice.subjectId });
    const post = await userinfo({ authorization: `DPoP ${token}`, DPoP: key.proof({ htu: userinfoUrl, htm: 'POST', accessToken: token }) }, 'POST');
    expect(post.status).toBe(200);
  });

  it('refuses the bound token sent as a Bearer token: 401 invalid_token with a DPoP challenge', async () => {
    const token = await boundUserToken();
    const res = await userinfo({ authorization: `Bearer ${token}` });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'invalid_token', error_description: 'The access token is missing or invalid.' });
    expect(res.challenge).toBe(`DPoP error="invalid_token", error_description="The access token is missing or invalid.", ${algs}`);
  });

  const invalidProof = { error: 'invalid_dpop_proof', error_description: 'The DPoP proof is invalid.' };
  const proofChallenge = `DPoP error="invalid_dpop_proof", error_description="The DPoP proof is invalid", ${algs}`;

  it.each([
    ['no proof', async (_token: string) => undefined],
    ['a proof of another key', async (token: string) => (await dpopKey()).proof({ htu: userinfoUrl, htm: 'GET', accessToken: token })],
    ['a proof without ath', async (_token: string) => key.proof({ htu: userinfoUrl, htm: 'GET' })],
    ['a proof with a wrong ath', async (_token: string) => key.proof({ htu: userinfoUrl, htm: 'GET', accessToken: 'another token' })],
    ['a proof for the token endpoint', async (token: string) => key.proof({ htu: tokenUrl, htm: 'GET', accessToken: token })],
  ])('refuses %s: 401 invalid_dpop_proof with a DPoP challenge', async (_name, make) => {
    const token = await boundUserToken();
    const proof = await make(token);
    const res = await userinfo({ authorization: `DPoP ${token}`, ...(proof === undefined ? {} : { DPoP: proof }) });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(invalidProof);
    expect(res.challenge).toBe(proofChallenge);
  });

  it('refuses the DPoP scheme with a token that is not bound', async () => {
    const res = await postForm(tokenUrl, { grant_type: 'password', username: alice.username, password: alice.password, scope: 'openid' }, auth('web'));
    const token = res.body.access_token as string;
    const reply = await userinfo({ authorization: `DPoP ${token}`, DPoP: key.proof({ htu: userinfoUrl, htm: 'GET', accessToken: token }) });
    expect(reply.status).toBe(401);
    expect(reply.body.error).toBe('invalid_token');
  });
});

describe('delegation and token exchange of a DPoP-bound user token', () => {
  const refused = { error: 'invalid_dpop_proof', error_description: 'The token is DPoP-bound; send a DPoP proof of its key with ath.' };
  const delegate = (token: string, headers: Record<string, string> = {}) =>
    postForm(tokenUrl, { grant_type: 'delegation', token, scope: 'backend.read' }, { ...auth('api1.client'), ...headers });
  const exchange = (token: string, headers: Record<string, string> = {}) =>
    postForm(tokenUrl, { grant_type: tokenExchange, subject_token: token, subject_token_type: accessTokenType, scope: 'backend.read' }, { ...auth('exchanger'), ...headers });

  it.each([['delegation', delegate], ['token exchange', exchange]])('%s accepts it with a proof of its key and ath; the new token is bound', async (_name, call) => {
    const token = await boundUserToken('api1.read');
    const res = await call(token, { DPoP: key.proof({ htu: tokenUrl, accessToken: token }) });
    expect(res.status).toBe(200);
    expect(res.body.token_type).toBe('DPoP');
    expect(decodeJwt(res.body.access_token as string).cnf).toEqual({ jkt: key.jkt });
  });

  it.each([['delegation', delegate], ['token exchange', exchange]])('%s refuses it without a proof, with another key or a wrong ath: 401', async (_name, call) => {
    const token = await boundUserToken('api1.read');
    const other = await dpopKey();
    for (const headers of [
      {} as Record<string, string>,
      { DPoP: other.proof({ htu: tokenUrl, accessToken: token }) },
      { DPoP: key.proof({ htu: tokenUrl, accessToken: 'another token' }) },
      { DPoP: key.proof({ htu: tokenUrl }) },
    ]) {
      const res = await call(token, headers);
      expect(res.status).toBe(401);
      expect(res.body).toEqual(refused);
      expect(res.headers.get('www-authenticate')).toBe('DPoP error="invalid_dpop_proof", error_description="The token is DPoP-bound"');
    }
  });
});

describe('server nonces (dpop.requireNonce)', () => {
  let nonceServer: TestServer;
  beforeAll(async () => {
    nonceServer = await startServer({ ...baseConfig, dpop: { requireNonce: true } });
  });
  afterAll(() => nonceServer?.close());
  const url = () => `${nonceServer.url}/connect/token`;
  const request = (proof: string) =>
    postForm(url(), { grant_type: 'password', username: alice.username, password: alice.password, scope: 'openid api1.read' }, { ...auth('web'), DPoP: proof });

  it('answers a proof without a nonce 400 use_dpop_nonce with a DPoP-Nonce, and accepts the nonce', async () => {
    const first = await request(key.proof({ htu: url() }));
    expect(first.status).toBe(400);
    expect(first.body).toEqual({ error: 'use_dpop_nonce', error_description: 'The DPoP proof must carry the server nonce.' });
    const nonce = first.headers.get('dpop-nonce');
    expect(nonce).toMatch(/^[0-9a-z]+\.[\w-]{22}$/);
    const second = await request(key.proof({ htu: url(), nonce: nonce! }));
    expect(second.status).toBe(200);
    // A fresh nonce with each answer (the same one until the window turns).
    expect(second.headers.get('dpop-nonce')).toMatch(/^[0-9a-z]+\.[\w-]{22}$/);
  });

  it('answers a wrong nonce use_dpop_nonce too', async () => {
    const res = await request(key.proof({ htu: url(), nonce: '0.AAAAAAAAAAAAAAAAAAAAAA' }));
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('use_dpop_nonce');
    expect(res.headers.get('dpop-nonce')).not.toBe('0.AAAAAAAAAAAAAAAAAAAAAA');
  });

  it('a nonce made by another node sharing the store is accepted (no round trip: an HMAC of the time window)', async () => {
    const first = await request(key.proof({ htu: url() }));
    const nonce = first.headers.get('dpop-nonce')!;
    const other = await startServer({ ...baseConfig, dpop: { requireNonce: true } }, { store: nonceServer.app.store });
    try {
      const res = await postForm(`${other.url}/connect/token`, { grant_type: 'client_credentials', scope: 'api1.read' }, {
        ...auth('m2m'), DPoP: key.proof({ htu: `${other.url}/connect/token`, nonce }),
      });
      expect(res.status).toBe(200);
    } finally {
      await other.close();
    }
  });

  it('UserInfo answers 401 use_dpop_nonce with a DPoP challenge', async () => {
    const good = await request(key.proof({ htu: url(), nonce: (await request(key.proof({ htu: url() }))).headers.get('dpop-nonce')! }));
    const token = good.body.access_token as string;
    const res = await fetch(`${nonceServer.url}/connect/userinfo`, {
      headers: { authorization: `DPoP ${token}`, DPoP: key.proof({ htu: `${nonceServer.url}/connect/userinfo`, htm: 'GET', accessToken: token }) },
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: 'use_dpop_nonce', error_description: 'The DPoP proof must carry the server nonce.' });
    expect(res.headers.get('www-authenticate')).toBe(`DPoP error="use_dpop_nonce", error_description="Resource server requires nonce in DPoP proof", ${algs}`);
    expect(res.headers.get('dpop-nonce')).toEqual(expect.any(String));
  });
});
