/**
 * /account/second-factor (issue 35) as a browser without JavaScript posts it: a signed-in user
 * the database keeps turns on one-time codes (active only after the first right code), sees the
 * recovery codes once; with the codes on, a session that gave only the password changes nothing;
 * a config user and a browser without a session are told why; a form without its CSRF token is refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/oauth/password-hash.js';
import { startServer, type TestServer } from '../support/server.js';
import { alice, authorizeUrl, Browser, signInAndAuthorize, signInConfig, webRequest } from '../support/sign-in.js';
import { fromBase32, totpAt } from '../support/totp.js';

const jack = { subjectId: 'sub-jack', username: 'jack', password: 'jack-password-1' };
const kim = { subjectId: 'sub-kim', username: 'kim', password: 'kim-password-1' };
let server: TestServer;

beforeAll(async () => {
  server = await startServer(await signInConfig());
  for (const user of [jack, kim]) {
    await server.app.store.users.add({
      subjectId: user.subjectId, username: user.username, email: undefined, emailVerified: false, claims: {}, disabled: false,
      passwordHash: await hashPassword(user.password, { ln: 4, r: 8, p: 1 }), createdAt: Date.now(),
    });
  }
});
afterAll(() => server?.close());

const page = (browser: Browser, query = '') => browser.get(`${server.url}/account/second-factor${query}`);

describe('/account/second-factor', () => {
  it('turns on one-time codes for a signed-in user after the first right code; the next sign-in asks for one', async () => {
    const browser = new Browser(server.url);
    await signInAndAuthorize(server, browser, webRequest().params, jack);
    const overview = await page(browser);
    expect(overview.status).toBe(200);
    expect(overview.html).toContain('<h1>Second factor</h1>');
    expect(overview.html).toContain('One-time codes are off');
    const enrol = await browser.submit(overview, { action: 'enrol' });
    expect(enrol.html).toContain('<h1>Set up one-time codes</h1>');
    const key = fromBase32(/id="totp-secret">([A-Z2-7 ]+)</.exec(enrol.html)![1]!);
    // Pending until confirmed: a sign-in now asks for no code.
    expect((await server.app.store.factors.get(jack.subjectId)).totp?.confirmedAt).toBeUndefined();
    const missing = await browser.submit(enrol, { code: '' });
    expect(missing.status).toBe(400);
    expect(missing.html).toContain('Enter the code.');
    const done = await browser.submit(missing, { code: totpAt(key, Date.now()) });
    expect(done.status).toBe(200);
    expect(done.html).toContain('<h1>Save your recovery codes</h1>');
    expect([...done.html.matchAll(/<li>[A-Z2-7-]{19}<\/li>/g)]).toHaveLength(10);
    const after = await page(browser);
    expect(after.html).toContain('One-time codes are on');
    expect(after.html).toContain('10 of 10 recovery codes left.');
    expect(after.html).not.toContain('id="totp-secret"');

    const next = new Browser(server.url);
    const signIn = await next.get(authorizeUrl(server, webRequest().params));
    const ask = await next.submit(signIn, { username: jack.username, password: jack.password });
    expect(ask.html).toContain('<h1>Enter your one-time code</h1>');
    // This session gave only the password: the account page changes nothing for it.
    const guarded = await page(next);
    expect(guarded.html).toContain('Sign in again with your one-time code to change these settings.');
    expect(guarded.html).not.toContain('name="action"');
  });

  it('tells a browser without a session to sign in, and a config user that codes are not kept for them; speaks German', async () => {
    expect((await page(new Browser(server.url))).html).toContain('Sign in to an application first');
    const browser = new Browser(server.url);
    await signInAndAuthorize(server, browser, webRequest().params, alice);
    expect((await page(browser)).html).toContain('One-time codes are only for accounts this service keeps itself.');
    expect((await page(browser, '?ui_locales=de')).html).toContain('Einmalcodes gibt es nur für Konten, die dieser Dienst selbst verwaltet.');
  });

  it('refuses a form without its CSRF token', async () => {
    const browser = new Browser(server.url);
    await signInAndAuthorize(server, browser, webRequest().params, kim);
    const forged = await browser.post(`${server.url}/account/second-factor`, { action: 'enrol' });
    expect(forged.status).toBe(400);
    expect(forged.html).toContain('This form has expired or did not come from this page.');
    expect((await server.app.store.factors.get(kim.subjectId)).totp).toBeUndefined();
  });
});
