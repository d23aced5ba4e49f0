/**
 * One sign-in session for every page: a person signed in at /connect/authorize opens the
 * device page and goes from the code straight to consent (no password again), and a sign-in
 * on the device page serves a later authorization request with prompt=none. Signing out on
 * either side signs the browser out of both.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';
import { codesFor, deviceClients, PageClient, poll } from '../device/helpers.js';
import { alice, authorizeUrl, Browser, signInAndAuthorize, signInClients, signInConfig, webRequest } from '../support/sign-in.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer(await signInConfig({
    clients: [...signInClients, deviceClients[0]!],
    apiScopes: [{ name: 'api1.read', description: 'Read your data in API 1' }, { name: 'api1.write' }],
  }));
});
afterAll(() => server.close());

/** The device page, driven with the cookies of `browser`. */
function devicePageOf(browser: Browser): PageClient {
  const page = new PageClient(server.url);
  for (const [name, value] of browser.cookies) page.cookies.set(name, value);
  return page;
}

describe('single sign-on across the sign-in pages and the device page', () => {
  it('signed in at /connect/authorize: the device page asks for no password, and approves as that user', async () => {
    const browser = new Browser(server.url);
    await signInAndAuthorize(server, browser, webRequest().params);
    const codes = await codesFor(server, { client_id: 'tv', scope: 'openid api1.read' });
    const page = devicePageOf(browser);
    const entry = await page.get(codes.verification_uri_complete);
    const consent = await page.submit(entry, { user_code: codes.user_code });
    expect(consent.status).toBe(200);
    expect(consent.html).toContain('<h1>Allow access?</h1>');
    expect(consent.html).toContain('Signed in as <strong>alice</strong>');
    expect((await page.submit(consent, { decision: 'approve' })).html).toContain('<h1>Device connected</h1>');
    const tokens = await poll(server, codes.device_code);
    expect(tokens.status).toBe(200);
    expect(JSON.parse(Buffer.from((tokens.body.access_token as string).split('.')[1]!, 'base64url').toString()).sub).toBe(alice.subjectId);
  });

  it('signed in on the device page: prompt=none at /connect/authorize answers a code', async () => {
    const codes = await codesFor(server, { client_id: 'tv', scope: 'api1.read' });
    const page = new PageClient(server.url);
    const entry = await page.get(codes.verification_uri_complete);
    const signIn = await page.submit(entry, { user_code: codes.user_code });
    const consent = await page.submit(signIn, { username: alice.username, password: alice.password });
    expect(consent.html).toContain('<h1>Allow access?</h1>');
    const browser = new Browser(server.url);
    for (const [name, value] of page.cookies) browser.cookies.set(name, value);
    const none = await browser.get(authorizeUrl(server, webRequest({ prompt: 'none' }).params));
    expect(none.status).toBe(303);
    expect(none.location!.searchParams.has('code')).toBe(true);
  });

  it('signing out on the device page signs the browser out at /connect/authorize too', async () => {
    const browser = new Browser(server.url);
    await signInAndAuthorize(server, browser, webRequest().params);
    const codes = await codesFor(server, { client_id: 'tv', scope: 'api1.read' });
    const page = devicePageOf(browser);
    const consent = await page.submit(await page.get(codes.verification_uri_complete), { user_code: codes.user_code });
    const out = await page.submit(consent, {}, 1);
    expect(out.html).toContain('<h1>Connect a device</h1>');
    const none = await browser.get(authorizeUrl(server, webRequest({ prompt: 'none' }).params));
    expect(none.location!.searchParams.get('error')).toBe('login_required');
  });
});
