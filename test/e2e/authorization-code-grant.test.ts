/**
 * POST /connect/token with grant_type=authorization_code (RFC 6749 §4.1.3, RFC 7636 §4.6), and
 * the RFC 9700 §4 attacks on the flow: code injection and replay, PKCE downgrade, CSRF, session
 * fixation. Exact status and {error, error_description} for each refusal.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postForm, startServer, type TestServer } from '../support/server.js';
import { manualClock } from '../device/helpers.js';
import {
  alice, authorizeUrl, Browser, formsOf, redeemWeb, signInAndAuthorize, signInConfig, spaRedirect, webRequest,
} from '../support/sign-in.js';

const clock = manualClock(Date.parse('2030-01-01T00:00:00Z'));
let server: TestServer;
beforeAll(async () => {
  server = await startServer(await signInConfig(), { clock });
});
afterAll(() => server.close());

async function codeFor(extra: Record<string, string> = {}, clientId = 'web', redirectUri?: string) {
  const { params, verifier } = webRequest(extra, clientId, redirectUri);
  const location = await signInAndAuthorize(server, new Browser(server.url), params);
  return { code: location.searchParams.get('code')!, verifier, params };
}

const invalidCode = { error: 'invalid_grant', error_description: 'The authorization code is invalid or expired.' };

describe('redeeming a code', () => {
  it('a code works once; the second time it is invalid_grant and the first redemption\'s tokens are revoked (RFC 6749 §4.1.2)', async () => {
    const { code, verifier } = await codeFor({ scope: 'openid offline_access' });
    const first = await redeemWeb(server, code, verifier);
    expect(first.status).toBe(200);
    const again = await redeemWeb(server, code, verifier);
    expect(again).toMatchObject({ status: 400, body: invalidCode });
    const refresh = await postForm(`${server.url}/connect/token`, { grant_type: 'refresh_token', refresh_token: first.body.refresh_token as string }, {
      authorization: `Basic ${Buffer.from('web:web-secret').toString('base64')}`,
    });
    expect(refresh.status).toBe(400);
    expect(refresh.body.error).toBe('invalid_grant');
  });

  it('the refresh token of a code rotates like any other', async () => {
    const { code, verifier } = await codeFor({ scope: 'openid api1.read offline_access' });
    const first = await redeemWeb(server, code, verifier);
    const refreshed = await postForm(`${server.url}/connect/token`, { grant_type: 'refresh_token', refresh_token: first.body.refresh_token as string }, {
      authorization: `Basic ${Buffer.from('web:web-secret').toString('base64')}`,
    });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.scope).toBe('openid api1.read offline_access');
    expect(refreshed.body.refresh_token).not.toBe(first.body.refresh_token);
  });

  it('an expired code is invalid_grant', async () => {
    const { code, verifier } = await codeFor();
    clock.advance(301);
    expect(await redeemWeb(server, code, verifier)).toMatchObject({ status: 400, body: invalidCode });
  });

  it('redirect_uri must equal the one of the authorization request', async () => {
    const { code, verifier } = await codeFor();
    expect(await redeemWeb(server, code, verifier, { redirect_uri: 'https://web.example.com/other?tenant=1' })).toMatchObject({
      status: 400, body: { error: 'invalid_grant', error_description: 'The redirect_uri does not match the authorization request.' },
    });
    const { code: second, verifier: v2 } = await codeFor();
    const without = await postForm(`${server.url}/connect/token`, { grant_type: 'authorization_code', code: second, code_verifier: v2 }, {
      authorization: `Basic ${Buffer.from('web:web-secret').toString('base64')}`,
    });
    expect(without).toMatchObject({ status: 400, body: { error: 'invalid_request', error_description: 'The redirect_uri parameter is required.' } });
  });

  it('code_verifier must match the challenge, and is required', async () => {
    const { code } = await codeFor();
    expect(await redeemWeb(server, code, 'x'.repeat(43))).toMatchObject({
      status: 400, body: { error: 'invalid_grant', error_description: 'The code_verifier does not match the code_challenge.' },
    });
    const { code: second } = await codeFor();
    const res = await postForm(`${server.url}/connect/token`, { grant_type: 'authorization_code', code: second, redirect_uri: 'https://web.example.com/callback' }, {
      authorization: `Basic ${Buffer.from('web:web-secret').toString('base64')}`,
    });
    expect(res).toMatchObject({ status: 400, body: { error: 'invalid_request', error_description: 'The code_verifier parameter is required.' } });
  });

  it('a missing code is invalid_request; an unknown one invalid_grant', async () => {
    const res = await postForm(`${server.url}/connect/token`, { grant_type: 'authorization_code' }, { authorization: `Basic ${Buffer.from('web:web-secret').toString('base64')}` });
    expect(res).toMatchObject({ status: 400, body: { error: 'invalid_request', error_description: 'The code parameter is required.' } });
    expect(await redeemWeb(server, 'not-a-code', 'x'.repeat(43))).toMatchObject({ status: 400, body: invalidCode });
  });

  it('a confidential client must authenticate', async () => {
    const { code, verifier } = await codeFor();
    const res = await postForm(`${server.url}/connect/token`, { grant_type: 'authorization_code', client_id: 'web', code, redirect_uri: 'https://web.example.com/callback', code_verifier: verifier });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('invalid_client');
  });
});

describe('RFC 9700 §4 attacks', () => {
  it('code injection: a code is bound to its client (another client\'s code is invalid_grant)', async () => {
    const { code, verifier } = await codeFor({}, 'spa', spaRedirect);
    expect(await redeemWeb(server, code, verifier, { redirect_uri: spaRedirect })).toMatchObject({ status: 400, body: invalidCode });
  });

  it('code injection: a stolen code without its verifier is useless (PKCE)', async () => {
    const { code } = await codeFor();
    const { verifier: attackers } = webRequest();
    expect((await redeemWeb(server, code, attackers)).body.error).toBe('invalid_grant');
  });

  it('CSRF: the sign-in form needs the token bound to this browser and this request', async () => {
    const victim = new Browser(server.url);
    const attacker = new Browser(server.url);
    const attackerPage = await attacker.get(authorizeUrl(server, webRequest().params));
    await victim.get(authorizeUrl(server, webRequest().params));
    const form = formsOf(attackerPage.html)[0]!;
    // The attacker's form, posted from the victim's browser: its token is not for this browser.
    const forged = await victim.post(form.action, { ...form.fields, username: alice.username, password: alice.password });
    expect(forged.status).toBe(400);
    expect(forged.html).toContain('This sign-in has expired or was opened in another browser.');
    const noToken = await attacker.post(form.action, { ...form.fields, csrf: '', username: alice.username, password: alice.password });
    expect(noToken.status).toBe(400);
  });

  it('session fixation: signing in issues a new session cookie', async () => {
    const browser = new Browser(server.url);
    const page = await browser.get(authorizeUrl(server, webRequest().params));
    const before = browser.cookies.get('svc_session');
    expect(before).toBeDefined();
    const done = await browser.submit(page, { username: alice.username, password: alice.password });
    expect(done.status).toBe(303);
    expect(browser.cookies.get('svc_session')).not.toBe(before);
    // The planted id signs nobody in.
    const planted = new Browser(server.url);
    planted.cookies.set('svc_session', before!);
    const none = await planted.get(authorizeUrl(server, webRequest({ prompt: 'none' }).params));
    expect(none.location!.searchParams.get('error')).toBe('login_required');
  });

  it('no password, code or token reaches a log line or an event', async () => {
    const { code, verifier } = await codeFor({ scope: 'openid offline_access' });
    const tokens = await redeemWeb(server, code, verifier);
    const text = server.logText();
    for (const secret of [alice.password, code, verifier, tokens.body.access_token, tokens.body.refresh_token, tokens.body.id_token]) {
      expect(text).not.toContain(secret as string);
    }
    expect(text).toContain('"type":"code.issued"');
    expect(text).toContain('"type":"code.redeemed"');
  });
});
