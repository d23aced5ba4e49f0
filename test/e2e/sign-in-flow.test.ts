/**
 * The authorization code flow over HTTP, as a browser without JavaScript and a client see it:
 * authorization request, sign-in page, consent page, redirect with code, state and iss, and
 * the code traded for tokens (RFC 6749 §4.1, OIDC Core §3.1, RFC 7636, RFC 9207).
 */
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postForm, startServer, type TestServer } from '../support/server.js';
import { alice, authorizeUrl, Browser, formsOf, redeemWeb, signInAndAuthorize, signInConfig, spaRedirect, webRedirect, webRequest } from '../support/sign-in.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer(await signInConfig());
});
afterAll(() => server.close());

describe('signing in with the authorization code flow', () => {
  it('shows a sign-in page: labelled fields, CSRF token, no script, not frameable, not cacheable', async () => {
    const { params } = webRequest();
    const page = await new Browser(server.url).get(authorizeUrl(server, params));
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.html).toContain('<label for="username">Username</label>');
    expect(page.html).toContain('<label for="password">Password</label>');
    expect(page.html).toContain('Sign in to continue to <strong>Demo web app</strong>.');
    expect(page.html).not.toContain('<script');
    const [form] = formsOf(page.html);
    expect(form!.action).toBe('/connect/authorize/sign-in');
    expect(form!.fields.csrf).toMatch(/^[\w-]{43}$/);
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(page.headers.get('content-security-policy')).toContain("form-action 'self' https://web.example.com;");
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.getSetCookie()[0]).toMatch(/^svc_session=[\w-]+\.[\w-]+; Max-Age=36000; Path=\/; HttpOnly; SameSite=Lax$/);
  });

  it('signs in, redirects with code, state and iss, and the code buys an access token, an ID token and a refresh token', async () => {
    const { params, verifier } = webRequest({ scope: 'openid profile api1.read offline_access' });
    const location = await signInAndAuthorize(server, new Browser(server.url), params);
    expect(location.origin + location.pathname).toBe(webRedirect);
    expect([...location.searchParams.keys()]).toEqual(['code', 'state', 'iss']);
    expect(location.searchParams.get('state')).toBe(params.state);
    expect(location.searchParams.get('iss')).toBe(server.url);

    const res = await redeemWeb(server, location.searchParams.get('code')!, verifier);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ token_type: 'Bearer', scope: 'openid profile api1.read offline_access', expires_in: 3600 });
    expect(typeof res.body.refresh_token).toBe('string');
    const idToken = decodeJwt(res.body.id_token as string);
    expect(idToken).toMatchObject({ iss: server.url, sub: alice.subjectId, aud: 'web', nonce: params.nonce, name: 'Alice Smith' });
    expect(typeof idToken.auth_time).toBe('number');
    expect(typeof idToken.sid).toBe('string');
    expect(typeof idToken.at_hash).toBe('string');
    expect(idToken.email).toBeUndefined();
  });

  it('a public SPA signs in with consent and PKCE, without a secret', async () => {
    const { params, verifier } = webRequest({ scope: 'openid api1.read' }, 'spa', spaRedirect);
    const browser = new Browser(server.url);
    const signIn = await browser.get(authorizeUrl(server, params));
    const consent = await browser.submit(signIn, { username: alice.username, password: alice.password });
    expect(consent.status).toBe(200);
    expect(consent.html).toContain('<strong>Demo SPA</strong> is asking for access to your account.');
    expect(consent.html).toContain('<li>Read your data in API 1<span class="scope-name">api1.read</span></li>');
    const done = await browser.submit(consent, { decision: 'approve' });
    expect(done.status).toBe(303);
    const code = done.location!.searchParams.get('code')!;
    const res = await postForm(`${server.url}/connect/token`, { grant_type: 'authorization_code', client_id: 'spa', code, redirect_uri: spaRedirect, code_verifier: verifier });
    expect(res.status).toBe(200);
    expect(res.body.scope).toBe('openid api1.read');
  });
});
