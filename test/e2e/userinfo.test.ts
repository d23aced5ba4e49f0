/**
 * GET/POST /connect/userinfo (OIDC Core §5.3, RFC 6750): claims per granted identity scope,
 * `sub` equal to the ID token's, and the Bearer challenges for every refusal.
 */
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postForm, startServer, type TestServer } from '../support/server.js';
import { alice, Browser, redeemWeb, signInAndAuthorize, signInConfig, webRequest } from '../support/sign-in.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer(await signInConfig());
});
afterAll(() => server.close());

async function tokensFor(scope: string) {
  const { params, verifier } = webRequest({ scope });
  const location = await signInAndAuthorize(server, new Browser(server.url), params);
  return (await redeemWeb(server, location.searchParams.get('code')!, verifier)).body as Record<string, string>;
}

async function userinfo(init: RequestInit = {}) {
  const res = await fetch(`${server.url}/connect/userinfo`, init);
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

const invalidToken = { error: 'invalid_token', error_description: 'The access token is missing or invalid.' };
const challenge = 'Bearer realm="svc", error="invalid_token", error_description="The access token is missing or invalid."';

describe('userinfo', () => {
  it('GET with a Bearer header: the claims of the granted identity scopes, sub as in the ID token', async () => {
    const tokens = await tokensFor('openid profile');
    const res = await userinfo({ headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ sub: alice.subjectId, acr: 'pwd', amr: ['pwd'], name: 'Alice Smith' });
    expect(res.body.sub).toBe(decodeJwt(tokens.id_token!).sub);
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('POST with the token in the form body, and POST with only the header', async () => {
    const tokens = await tokensFor('openid email');
    const form = await postForm(`${server.url}/connect/userinfo`, { access_token: tokens.access_token! });
    expect(form).toMatchObject({ status: 200, body: { sub: alice.subjectId, email: 'alice@example.com' } });
    const header = await userinfo({ method: 'POST', headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(header.body).toEqual({ sub: alice.subjectId, acr: 'pwd', amr: ['pwd'], email: 'alice@example.com' });
  });

  it('a missing, malformed or unknown token is 401 invalid_token with a Bearer challenge', async () => {
    for (const init of [{}, { headers: { authorization: 'Bearer not-a-token' } }, { headers: { authorization: 'Basic abc' } }]) {
      const res = await userinfo(init);
      expect(res.status).toBe(401);
      expect(res.body).toEqual(invalidToken);
      expect(res.headers.get('www-authenticate')).toBe(challenge);
    }
  });

  it('a token that stands for no user (client_credentials) is 401 invalid_token', async () => {
    const cc = await postForm(`${server.url}/connect/token`, { grant_type: 'client_credentials' }, { authorization: `Basic ${Buffer.from('m2m:m2m-secret').toString('base64')}` });
    const res = await userinfo({ headers: { authorization: `Bearer ${cc.body.access_token as string}` } });
    expect(res).toMatchObject({ status: 401, body: invalidToken });
  });

  it('a token without openid is 403 insufficient_scope', async () => {
    const tokens = await tokensFor('api1.read');
    const res = await userinfo({ headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'insufficient_scope', error_description: 'The access token lacks the openid scope.' });
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="svc", error="insufficient_scope", error_description="The access token lacks the openid scope."');
  });

  it('the token in both places is invalid_request', async () => {
    const tokens = await tokensFor('openid');
    const res = await postForm(`${server.url}/connect/userinfo`, { access_token: tokens.access_token! }, { authorization: `Bearer ${tokens.access_token}` });
    expect(res).toMatchObject({ status: 400, body: { error: 'invalid_request', error_description: 'Send the access token in one place only.' } });
  });
});
