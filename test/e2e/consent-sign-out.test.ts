/**
 * "Not you? Sign out" on the consent page of the sign-in flow (issue 34), as on the device page:
 * the session ends (prompt=none then answers login_required), the same request asks for a
 * sign-in, and a forged form signs nobody out.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';
import { alice, authorizeUrl, bob, Browser, formsOf, signInConfig, spaRedirect, webRequest } from '../support/sign-in.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer(await signInConfig());
});
afterAll(() => server?.close());

async function consentPage(browser: Browser) {
  const signIn = await browser.get(authorizeUrl(server, webRequest({}, 'spa', spaRedirect).params));
  const consent = await browser.submit(signIn, { username: alice.username, password: alice.password });
  expect(consent.html).toContain('<h1>Allow access?</h1>');
  return consent;
}

describe('Not you? Sign out on the consent page', () => {
  it('ends the session and asks who is there for the same request; the next person gets the code', async () => {
    const browser = new Browser(server.url);
    const consent = await consentPage(browser);
    const signOut = formsOf(consent.html)[1]!;
    expect(signOut.fields.step).toBe('sign-out');
    const again = await browser.submit(consent, {}, 1);
    expect(again.status).toBe(200);
    expect(again.html).toContain('<h1>Sign in</h1>');
    expect(again.html).toContain('<strong>Demo SPA</strong>');
    // The old session is gone: a silent request from this browser must sign in.
    const silent = await browser.get(authorizeUrl(server, webRequest({ prompt: 'none' }).params));
    expect(silent.location?.searchParams.get('error')).toBe('login_required');
    const bobConsent = await browser.submit(again, { username: bob.username, password: bob.password });
    expect(bobConsent.html).toContain('Signed in as <strong>bob</strong>.');
    const done = await browser.submit(bobConsent, { decision: 'approve' });
    expect(done.location?.origin + done.location!.pathname).toBe(spaRedirect);
    expect(done.location?.searchParams.get('code')).toBeTruthy();
    expect(server.logText()).toContain('consent page: signed out');
  });

  it('a sign-out form with another CSRF token is refused and signs nobody out', async () => {
    const browser = new Browser(server.url);
    const consent = await consentPage(browser);
    const { action, fields } = formsOf(consent.html)[1]!;
    const forged = await browser.post(action, { ...fields, csrf: 'forged' });
    expect(forged.status).toBe(400);
    expect(forged.html).toContain('<h1>Please start again</h1>');
    const silent = await browser.get(authorizeUrl(server, webRequest({ prompt: 'none' }).params));
    expect(silent.location?.searchParams.get('code')).toBeTruthy();
  });
});
