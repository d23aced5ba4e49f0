/**
 * Logout with someone else's ID token, in Chromium (RP-Initiated Logout 1.0 §2, §6): a page on
 * another site (`evil.test`, the test's own loopback server) sends the signed-in browser to
 * /connect/endsession with an ID token of the same user that is not from this session (another
 * client's, from another browser, or one from a session that has ended). The user sees the
 * confirmation page and stays signed in: a following prompt=none authorization still gets a
 * code.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser as Chromium, Page } from 'playwright-core';
import { hashSecret } from '../../src/sdk/hash.js';
import { postForm, startServer, type TestServer } from '../support/server.js';
import { chromiumMissing, launchChromium } from '../support/chromium.js';
import { alice, authorizeUrl, Browser, redeemWeb, signInAndAuthorize, signInClients, signInConfig, webRequest } from '../support/sign-in.js';

if (chromiumMissing) console.warn('Skipping the logout browser test: /usr/bin/chromium is missing (apt-get install -y chromium).');

describe.skipIf(chromiumMissing)('cross-site logout with an ID token not of this session, in Chromium', () => {
  let server: TestServer;
  let chromium: Chromium;
  /** The client's site and the attacker's, one loopback server: evil.test is mapped to it. */
  let site: Server;
  let sitePort: number;
  const attacks = new Map<string, string>();

  beforeAll(async () => {
    site = createServer((req, res) => {
      const target = attacks.get(req.url ?? '');
      const escaped = target?.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
      // No script needed: a meta refresh is a top-level navigation, which carries SameSite=Lax cookies.
      const body = escaped ? `<meta http-equiv="refresh" content="0;url=${escaped}"><title>Cats</title>` : '<title>Client</title><h1>Client</h1>';
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html>${body}`);
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    sitePort = (site.address() as AddressInfo).port;
    const clientSite = `http://127.0.0.1:${sitePort}`;
    server = await startServer(await signInConfig({
      clients: [
        ...signInClients,
        {
          clientId: 'browser-web', clientName: 'Demo web app', clientSecrets: [{ value: hashSecret('browser-secret') }],
          allowedGrantTypes: ['authorization_code'], allowedScopes: ['openid', 'profile'],
          redirectUris: [`${clientSite}/callback`], postLogoutRedirectUris: [`${clientSite}/signed-out`],
        },
      ],
    }));
    chromium = await launchChromium({ hostRules: 'MAP evil.test 127.0.0.1' });
  });
  afterAll(async () => {
    await chromium?.close();
    await server?.close();
    site?.close();
  });

  const callback = () => `http://127.0.0.1:${sitePort}/callback`;
  const browserWeb = (extra: Record<string, string> = {}) => webRequest(extra, 'browser-web', callback());
  const landedOn = (page: Page): URL => new URL(page.url());

  async function signInThere(page: Page): Promise<string> {
    const flow = browserWeb();
    await page.goto(authorizeUrl(server, flow.params));
    if ((await page.locator('h1').textContent()) === 'Sign in') {
      await page.getByLabel('Username').fill(alice.username);
      await page.getByLabel('Password').fill(alice.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
    }
    await expect.poll(() => landedOn(page).searchParams.has('code')).toBe(true);
    const tokens = await postForm(`${server.url}/connect/token`, {
      grant_type: 'authorization_code', code: landedOn(page).searchParams.get('code')!, redirect_uri: callback(), code_verifier: flow.verifier,
    }, { authorization: `Basic ${Buffer.from('browser-web:browser-secret').toString('base64')}` });
    expect(tokens.status).toBe(200);
    return tokens.body.id_token as string;
  }

  /** The attacker's page sends the browser to the end-session endpoint with `idToken`. */
  async function attack(page: Page, idToken: string, postLogout: string): Promise<void> {
    const path = `/attack-${attacks.size}`;
    attacks.set(path, `${server.url}/connect/endsession?${new URLSearchParams({ id_token_hint: idToken, post_logout_redirect_uri: postLogout, state: 'gotcha' })}`);
    await page.goto(`http://evil.test:${sitePort}${path}`);
    await expect.poll(() => landedOn(page).pathname).toBe('/connect/endsession');
    await expect.poll(() => page.locator('h1').textContent()).toBe('Sign out?');
  }

  async function stillSignedIn(page: Page): Promise<void> {
    await page.goto(authorizeUrl(server, browserWeb({ prompt: 'none' }).params));
    await expect.poll(() => landedOn(page).origin + landedOn(page).pathname).toBe(callback());
    expect(landedOn(page).searchParams.get('error')).toBeNull();
    expect(landedOn(page).searchParams.get('code')).toMatch(/^[\w-]+$/);
  }

  it('an ID token of the same user for another client, from another browser: the confirmation page, still signed in', async () => {
    const context = await chromium.newContext({ javaScriptEnabled: false });
    try {
      const page = await context.newPage();
      await signInThere(page);
      // Alice's ID token that another relying party (client `web`) holds, from her sign-in elsewhere.
      const flow = webRequest();
      const elsewhere = await redeemWeb(server, (await signInAndAuthorize(server, new Browser(server.url), flow.params)).searchParams.get('code')!, flow.verifier);
      await attack(page, elsewhere.body.id_token as string, 'https://web.example.com/signed-out');
      await stillSignedIn(page);
    } finally {
      await context.close();
    }
  });

  it('an ID token from a session of this browser that has ended: the confirmation page, still signed in', async () => {
    const context = await chromium.newContext({ javaScriptEnabled: false });
    try {
      const page = await context.newPage();
      const old = await signInThere(page);
      await page.goto(`${server.url}/connect/endsession`);
      await page.getByRole('button', { name: 'Sign out' }).click();
      await expect.poll(() => page.locator('h1').textContent()).toBe('You are signed out');
      await signInThere(page);
      await attack(page, old, `http://127.0.0.1:${sitePort}/signed-out`);
      await stillSignedIn(page);
    } finally {
      await context.close();
    }
  });
});
