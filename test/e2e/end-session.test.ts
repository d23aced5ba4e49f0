/**
 * GET/POST /connect/endsession (OIDC RP-Initiated Logout 1.0): with a valid id_token_hint the
 * session ends at once and the browser goes to a registered post_logout_redirect_uri with
 * state; without one the user confirms; an unregistered URI is never redirected to; and
 * afterwards prompt=none answers login_required.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';
import { postForm } from '../support/server.js';
import { authorizeUrl, Browser, redeemWeb, signInAndAuthorize, signInConfig, webRequest } from '../support/sign-in.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer(await signInConfig());
});
afterAll(() => server.close());

const signedOut = 'https://web.example.com/signed-out';
const web = `Basic ${Buffer.from('web:web-secret').toString('base64')}`;
const refresh = (refreshToken: string) => postForm(`${server.url}/connect/token`, { grant_type: 'refresh_token', refresh_token: refreshToken }, { authorization: web });

async function signedIn(): Promise<{ browser: Browser; idToken: string }> {
  const browser = new Browser(server.url);
  const { params, verifier } = webRequest();
  const location = await signInAndAuthorize(server, browser, params);
  const tokens = await redeemWeb(server, location.searchParams.get('code')!, verifier);
  return { browser, idToken: tokens.body.id_token as string };
}

async function promptNone(browser: Browser): Promise<string | null> {
  const page = await browser.get(authorizeUrl(server, webRequest({ prompt: 'none' }).params));
  return page.location!.searchParams.get('error');
}

describe('end session', () => {
  it('with a valid id_token_hint: ends the session, clears the cookie, redirects with state; prompt=none then answers login_required', async () => {
    const { browser, idToken } = await signedIn();
    expect(await promptNone(browser)).toBeNull();
    const url = `/connect/endsession?${new URLSearchParams({ id_token_hint: idToken, post_logout_redirect_uri: signedOut, state: 'bye-1' })}`;
    const res = await browser.get(url);
    expect(res.status).toBe(303);
    expect(res.location!.href).toBe(`${signedOut}?state=bye-1`);
    expect(res.headers.getSetCookie()[0]).toMatch(/^svc_session=.*; Max-Age=0;/);
    expect(await promptNone(browser)).toBe('login_required');
    expect(server.logText()).toContain('"type":"user.signed_out"');
  });

  it('without a hint: a confirmation page with a CSRF token; approving signs out', async () => {
    const { browser } = await signedIn();
    const confirm = await browser.get(`/connect/endsession?${new URLSearchParams({ client_id: 'web', post_logout_redirect_uri: signedOut, state: 's2' })}`);
    expect(confirm.status).toBe(200);
    expect(confirm.html).toContain('<h1>Sign out?</h1>');
    expect(confirm.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(await promptNone(browser)).toBeNull();
    const done = await browser.submit(confirm, { decision: 'approve' });
    expect(done.status).toBe(303);
    expect(done.location!.href).toBe(`${signedOut}?state=s2`);
    expect(await promptNone(browser)).toBe('login_required');
  });

  it('a forged confirmation (wrong CSRF token) signs nobody out', async () => {
    const { browser } = await signedIn();
    const res = await browser.post('/connect/endsession', { csrf: 'forged', decision: 'approve' });
    expect(res.status).toBe(400);
    expect(await promptNone(browser)).toBeNull();
  });

  it('an unregistered post_logout_redirect_uri is a 400 page, never a redirect', async () => {
    const { browser, idToken } = await signedIn();
    const cases: Array<Record<string, string>> = [
      { id_token_hint: idToken, post_logout_redirect_uri: 'https://evil.example/' },
      { post_logout_redirect_uri: signedOut },
      { client_id: 'spa', post_logout_redirect_uri: signedOut },
    ];
    for (const params of cases) {
      const res = await browser.get(`/connect/endsession?${new URLSearchParams(params)}`);
      expect(res.status).toBe(400);
      expect(res.location).toBeUndefined();
      expect(res.html).toContain('The address to return to after sign-out is not registered for this application.');
    }
    expect(await promptNone(browser)).toBeNull();
  });

  it('without a session and without a redirect: a signed-out page', async () => {
    const res = await new Browser(server.url).get('/connect/endsession');
    expect(res.status).toBe(200);
    expect(res.html).toContain('<h1>You are signed out</h1>');
  });
});

describe('which id_token_hint signs out without asking (RP-Initiated Logout §2, §6)', () => {
  const logoutWith = (idToken: string) =>
    `/connect/endsession?${new URLSearchParams({ id_token_hint: idToken, post_logout_redirect_uri: signedOut, state: 'x' })}`;

  it('an ID token of the same user from another browser\'s session: the confirmation page; nothing ends, no token is revoked', async () => {
    const { browser } = await signedIn();
    const mine = webRequest({ scope: 'openid offline_access' });
    const tokens = await redeemWeb(server, (await signInAndAuthorize(server, browser, mine.params)).searchParams.get('code')!, mine.verifier);
    const { idToken: elsewhere } = await signedIn();
    const res = await browser.get(logoutWith(elsewhere));
    expect(res.status).toBe(200);
    expect(res.html).toContain('<h1>Sign out?</h1>');
    expect(res.location).toBeUndefined();
    expect(res.headers.getSetCookie()).toEqual([]);
    expect(await promptNone(browser)).toBeNull();
    expect((await refresh(tokens.body.refresh_token as string)).status).toBe(200);
  });

  it('an ID token from an ended session of this browser: the confirmation page', async () => {
    const { browser, idToken: old } = await signedIn();
    const confirm = await browser.get('/connect/endsession');
    expect((await browser.submit(confirm, { decision: 'approve' })).status).toBe(200);
    const again = webRequest();
    await redeemWeb(server, (await signInAndAuthorize(server, browser, again.params)).searchParams.get('code')!, again.verifier);
    const res = await browser.get(logoutWith(old));
    expect(res.status).toBe(200);
    expect(res.html).toContain('<h1>Sign out?</h1>');
    expect(await promptNone(browser)).toBeNull();
  });

  it('an invalid hint with a client_id and its registered URI: no redirect, with or without a session', async () => {
    const forged = `/connect/endsession?${new URLSearchParams({ id_token_hint: 'not.an.id-token', client_id: 'web', post_logout_redirect_uri: signedOut, state: 'f' })}`;
    const nobody = await new Browser(server.url).get(forged);
    expect(nobody.status).toBe(400);
    expect(nobody.location).toBeUndefined();
    expect(nobody.html).toContain('The sign-out request is not valid.');

    const { browser } = await signedIn();
    const confirm = await browser.get(forged);
    expect(confirm.html).toContain('<h1>Sign out?</h1>');
    expect(confirm.headers.get('content-security-policy')).not.toContain('web.example.com');
    const done = await browser.submit(confirm, { decision: 'approve' });
    expect(done.status).toBe(200);
    expect(done.location).toBeUndefined();
    expect(done.html).toContain('<h1>You are signed out</h1>');
    expect(await promptNone(browser)).toBe('login_required');
  });
});

describe('what signing out revokes', () => {
  it('the refresh tokens of the session\'s codes, rotated ones included; another browser\'s session keeps its tokens', async () => {
    const browser = new Browser(server.url);
    const first = webRequest({ scope: 'openid offline_access' });
    const firstTokens = await redeemWeb(server, (await signInAndAuthorize(server, browser, first.params)).searchParams.get('code')!, first.verifier);
    const rotated = await refresh(firstTokens.body.refresh_token as string);
    expect(rotated.status).toBe(200);
    // A second code in the same session (single sign-on: no password asked).
    const second = webRequest({ scope: 'openid offline_access' });
    const secondTokens = await redeemWeb(server, (await signInAndAuthorize(server, browser, second.params)).searchParams.get('code')!, second.verifier);
    const other = new Browser(server.url);
    const third = webRequest({ scope: 'openid offline_access' });
    const otherTokens = await redeemWeb(server, (await signInAndAuthorize(server, other, third.params)).searchParams.get('code')!, third.verifier);

    const url = `/connect/endsession?${new URLSearchParams({ id_token_hint: secondTokens.body.id_token as string, post_logout_redirect_uri: signedOut })}`;
    expect((await browser.get(url)).status).toBe(303);

    const refused = { status: 400, body: { error: 'invalid_grant', error_description: 'The refresh token is invalid.' } };
    expect(await refresh(rotated.body.refresh_token as string)).toMatchObject(refused);
    expect(await refresh(secondTokens.body.refresh_token as string)).toMatchObject(refused);
    expect((await refresh(otherTokens.body.refresh_token as string)).status).toBe(200);
  });

  it('a code issued in the session and not yet redeemed', async () => {
    const browser = new Browser(server.url);
    const { params, verifier } = webRequest({ scope: 'openid' });
    const code = (await signInAndAuthorize(server, browser, params)).searchParams.get('code')!;
    const confirm = await browser.get('/connect/endsession');
    expect((await browser.submit(confirm, { decision: 'approve' })).status).toBe(200);
    expect(await redeemWeb(server, code, verifier)).toMatchObject({
      status: 400, body: { error: 'invalid_grant', error_description: 'The authorization code is invalid or expired.' },
    });
  });

  it('after a sign-in again (prompt=login), the earlier sign-in\'s tokens too', async () => {
    const browser = new Browser(server.url);
    const first = webRequest({ scope: 'openid offline_access' });
    const firstTokens = await redeemWeb(server, (await signInAndAuthorize(server, browser, first.params)).searchParams.get('code')!, first.verifier);
    const again = webRequest({ scope: 'openid offline_access', prompt: 'login' });
    const againTokens = await redeemWeb(server, (await signInAndAuthorize(server, browser, again.params)).searchParams.get('code')!, again.verifier);
    const url = `/connect/endsession?${new URLSearchParams({ id_token_hint: againTokens.body.id_token as string })}`;
    expect((await browser.get(url)).status).toBe(200);
    expect((await refresh(firstTokens.body.refresh_token as string)).status).toBe(400);
    expect((await refresh(againTokens.body.refresh_token as string)).status).toBe(400);
  });
});
