/**
 * Cookie tossing in Chromium (RFC 6265bis §4.1.3.2, §8.6): the service runs over https as
 * id.example.test, and a sibling, https://evil.example.test (the test's own loopback server, both
 * names mapped to 127.0.0.1), plants the attacker's own session cookie (bob's, from his own
 * sign-in) for the parent domain with a longer path, the one the browser sends first. The victim is never signed in as the attacker:
 * the service's `__Host-` cookie cannot be set by another host, and the attacker's id under the
 * old name does not pass. On an http issuer, where no prefix is possible, a planted cookie beside
 * the victim's is refused rather than picked.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser as Chromium, BrowserContext, Page } from 'playwright-core';
import { hashSecret } from '../../src/sdk/hash.js';
import type { UserConfig } from '../../src/config/schema.js';
import { issue, makeCa } from '../support/certificates.js';
import { chromiumMissing, launchChromium } from '../support/chromium.js';
import { freePort, startServer, type TestServer } from '../support/server.js';
import { alice, authorizeUrl, bob, signInClients, signInConfig, webRequest } from '../support/sign-in.js';
import { httpsPost } from '../support/tls-client.js';

if (chromiumMissing) console.warn('Skipping the cookie tossing browser test: /usr/bin/chromium is missing (apt-get install -y chromium).');

describe.skipIf(chromiumMissing)('cookie tossing from a sibling subdomain, in Chromium', () => {
  let https: TestServer;
  /** The https service as the browser reaches it: by its issuer's name, id.example.test. */
  let id: Pick<TestServer, 'url'>;
  let http: TestServer;
  let ca: string;
  let chromium: Chromium;
  /** The client's site (http) and the attacker's sibling, evil.example.test (https, as a real one would be). */
  let site: Server;
  let sitePort: number;
  let sibling: Server;
  let siblingPort: number;
  /** `Set-Cookie` lines the sibling's page answers with, by path. */
  const plants = new Map<string, string[]>();

  const callback = () => `http://127.0.0.1:${sitePort}/callback`;
  const client = (): NonNullable<UserConfig['clients']>[number] => ({
    clientId: 'browser-web', clientName: 'Demo web app', clientSecrets: [{ value: hashSecret('browser-secret') }],
    allowedGrantTypes: ['authorization_code'], allowedScopes: ['openid', 'profile'], redirectUris: [callback()],
  });

  beforeAll(async () => {
    const page = (cookies: string[] = []) => (res: ServerResponse) =>
      res.writeHead(200, { 'content-type': 'text/html', ...(cookies.length ? { 'set-cookie': cookies } : {}) }).end('<!doctype html><title>Site</title><h1>Site</h1>');
    site = createServer((_req, res) => page()(res));
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    sitePort = (site.address() as AddressInfo).port;

    const dir = mkdtempSync(join(tmpdir(), 'svc-cookie-tossing-'));
    const serverCa = await makeCa('CN=Test Server CA');
    const cert = await issue(serverCa, 'CN=id.example.test', { serverNames: ['id.example.test', '127.0.0.1'] });
    const evil = await issue(serverCa, 'CN=evil.example.test', { serverNames: ['evil.example.test'] });
    sibling = createHttpsServer({ cert: evil.certificatePem, key: evil.keyPem }, (req, res) => page(plants.get(req.url ?? ''))(res));
    await new Promise<void>((resolve) => sibling.listen(0, '127.0.0.1', resolve));
    siblingPort = (sibling.address() as AddressInfo).port;
    writeFileSync(join(dir, 'server.pem'), cert.certificatePem);
    writeFileSync(join(dir, 'server.key'), cert.keyPem, { mode: 0o600 });
    ca = serverCa.certificatePem;
    const port = await freePort();
    https = await startServer(await signInConfig({
      port, issuer: `https://id.example.test:${port}`,
      tls: { certificate: join(dir, 'server.pem'), key: join(dir, 'server.key') },
      clients: [...signInClients, client()],
    }));
    id = { url: `https://id.example.test:${port}` };
    http = await startServer(await signInConfig({ clients: [...signInClients, client()] }));
    chromium = await launchChromium({ hostRules: 'MAP *.example.test 127.0.0.1' });
  });
  afterAll(async () => {
    await chromium?.close();
    await https?.close();
    await http?.close();
    site?.close();
    sibling?.close();
  });

  const landedOn = (page: Page): URL => new URL(page.url());
  // The test's CA is not in Chromium's store; the certificate itself is right for id.example.test.
  const newContext = () => chromium.newContext({ javaScriptEnabled: false, ignoreHTTPSErrors: true });

  /** Signs `user` in through the browser-web client; the browser lands on the callback with a code. */
  async function signIn(page: Page, server: Pick<TestServer, 'url'>, user: { username: string; password: string }): Promise<void> {
    await page.goto(authorizeUrl(server as TestServer, webRequest({}, 'browser-web', callback()).params));
    await page.getByLabel('Username').fill(user.username);
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => landedOn(page).searchParams.has('code')).toBe(true);
  }

  /** A prompt=none authorization: the subject its code is for, or the error. */
  async function whoIsSignedIn(page: Page): Promise<{ sub?: string; error?: string | null }> {
    const flow = webRequest({ prompt: 'none' }, 'browser-web', callback());
    await page.goto(authorizeUrl(id as TestServer, flow.params));
    await expect.poll(() => landedOn(page).origin + landedOn(page).pathname).toBe(callback());
    const code = landedOn(page).searchParams.get('code');
    if (!code) return { error: landedOn(page).searchParams.get('error') };
    const tokens = await httpsPost(`${https.url}/connect/token`, { grant_type: 'authorization_code', code, redirect_uri: callback(), code_verifier: flow.verifier }, { ca }, {
      authorization: `Basic ${Buffer.from('browser-web:browser-secret').toString('base64')}`,
    });
    expect(tokens.status).toBe(200);
    return { sub: decodeJwt(tokens.body.id_token as string).sub! };
  }

  /** The attacker signs in as bob in his own browser and takes his session cookie's value. */
  async function attackersCookie(server: Pick<TestServer, 'url'>): Promise<{ name: string; value: string }> {
    const context = await newContext();
    try {
      await signIn(await context.newPage(), server, bob);
      const cookie = (await context.cookies(server.url)).find((c) => c.name.includes('svc_session'))!;
      return { name: cookie.name, value: cookie.value };
    } finally {
      await context.close();
    }
  }

  /** The sibling's page plants bob's cookie for the whole parent domain, on the authorization endpoint's path. */
  async function plantFromSibling(context: BrowserContext, value: string): Promise<void> {
    const path = `/plant-${plants.size}`;
    plants.set(path, [
      `svc_session=${value}; Domain=example.test; Path=/connect/authorize; Secure`,
      // Refused by the browser: a __Host- cookie may not name a Domain.
      `__Host-svc_session=${value}; Domain=example.test; Path=/; Secure`,
    ]);
    const page = await context.newPage();
    await page.goto(`https://evil.example.test:${siblingPort}${path}`);
    await page.close();
    const planted = (await context.cookies()).filter((c) => c.domain === '.example.test');
    expect(planted.map((c) => `${c.name} ${c.path}`)).toEqual(['svc_session /connect/authorize']);
  }

  it('https: the service\'s cookie is __Host-svc_session (Secure, Path=/, host-only)', async () => {
    const context = await newContext();
    try {
      await signIn(await context.newPage(), id, alice);
      const cookies = await context.cookies(id.url);
      expect(cookies.map((c) => ({ name: c.name, domain: c.domain, path: c.path, secure: c.secure, httpOnly: c.httpOnly }))).toEqual([
        { name: '__Host-svc_session', domain: 'id.example.test', path: '/', secure: true, httpOnly: true },
      ]);
    } finally {
      await context.close();
    }
  });

  it('https: a victim signed in as alice stays alice after the sibling plants bob\'s cookie', async () => {
    const attacker = await attackersCookie(id);
    const context = await newContext();
    try {
      const page = await context.newPage();
      await signIn(page, id, alice);
      await plantFromSibling(context, attacker.value);
      expect(await whoIsSignedIn(page)).toEqual({ sub: alice.subjectId });
    } finally {
      await context.close();
    }
  });

  it('https: a signed-out victim is not signed in as bob by the planted cookie', async () => {
    const attacker = await attackersCookie(id);
    const context = await newContext();
    try {
      const page = await context.newPage();
      await plantFromSibling(context, attacker.value);
      expect(await whoIsSignedIn(page)).toEqual({ error: 'login_required' });
    } finally {
      await context.close();
    }
  });

  it('http: bob\'s cookie planted beside alice\'s with a longer path is refused with a page, not taken', async () => {
    const attacker = await attackersCookie(http);
    expect(attacker.name).toBe('svc_session');
    const context = await newContext();
    try {
      const page = await context.newPage();
      await signIn(page, http, alice);
      // No Domain cookie can be set for an IP address: a host cookie with the longer path has the same effect.
      await context.addCookies([{ name: 'svc_session', value: attacker.value, domain: '127.0.0.1', path: '/connect/authorize', httpOnly: true, sameSite: 'Lax' }]);
      const response = await page.goto(authorizeUrl(http, webRequest({ prompt: 'none' }, 'browser-web', callback()).params));
      expect(response!.status()).toBe(400);
      expect(landedOn(page).pathname).toBe('/connect/authorize');
      await expect.poll(() => page.locator('h1').textContent()).toBe('Please start again');
      expect(await page.locator('main').textContent()).toContain('Your browser sent more than one sign-in cookie for this site');
    } finally {
      await context.close();
    }
  });
});
