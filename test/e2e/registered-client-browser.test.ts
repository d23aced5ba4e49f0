/**
 * Issue 33 item 1 in Chromium: a page on another site sends a browser that has a session at the
 * service to the authorization URL of a self-registered client (RFC 7591). With `prompt=none`
 * the client hears `consent_required` and gets no code; without it the person sees a consent
 * page that says the operator has not verified the client and where it will be sent.
 * The clients' https sites (`*.example.test`) are one TLS server on loopback, which Chromium
 * reaches through its host resolver rules.
 */
import { createServer, type Server } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { chromiumMissing, chromiumPath, launchChromium } from '../support/chromium.js';
import { createRegistrationTokens } from '../../src/clients/registration/registration-tokens.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import { startServer, type TestServer } from '../support/server.js';
import { alice, authorizeUrl, signInClients, signInConfig, webRequest } from '../support/sign-in.js';
import { makeSelfSigned } from '../support/certificates.js';
import { axeViolations } from '../support/accessibility.js';
import { hashSecret } from '../../src/sdk/hash.js';

if (chromiumMissing) console.warn(`Skipping the registered-client browser test: ${chromiumPath} is missing (apt-get install -y chromium).`);


describe.skipIf(chromiumMissing)('a self-registered client in Chromium', () => {
  let server: TestServer;
  let browser: Browser;
  /** The other site: `/go?to=<url>` is a page whose script sends the browser there. */
  let site: Server;
  let siteUrl: string;
  /** The clients' own https sites, answering every page. */
  let clientSites: Server;
  let clientId: string;
  let rpRedirect: string;
  let webRedirect: string;

  beforeAll(async () => {
    const tls = await makeSelfSigned('CN=example.test');
    clientSites = createTlsServer({ cert: tls.certificatePem, key: tls.keyPem }, (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Client</title><h1>Client</h1>');
    });
    await new Promise<void>((resolve) => clientSites.listen(0, '127.0.0.1', resolve));
    const tlsPort = (clientSites.address() as AddressInfo).port;
    rpRedirect = `https://rp.example.test:${tlsPort}/cb`;
    webRedirect = `https://web.example.test:${tlsPort}/callback`;
    const store = createMemoryStore();
    server = await startServer(await signInConfig({
      clients: [
        ...signInClients,
        { clientId: 'browser-web', clientSecrets: [{ value: hashSecret('browser-secret') }], allowedGrantTypes: ['authorization_code'], allowedScopes: ['openid'], redirectUris: [webRedirect] },
      ],
      registration: { enabled: true, allowedGrantTypes: ['authorization_code'], allowedScopes: ['openid', 'profile'] },
    }), { store });
    const initial = (await createRegistrationTokens({ store, clock: { now: () => Date.now() } }).issueInitial(3600, 1000)).token;
    const registered = await fetch(`${server.url}/connect/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${initial}` },
      body: JSON.stringify({ client_name: 'Demo web app', redirect_uris: [rpRedirect], scope: 'openid profile' }),
    });
    expect(registered.status).toBe(201);
    clientId = ((await registered.json()) as { client_id: string }).client_id;

    site = createServer((req, res) => {
      const to = new URL(req.url ?? '/', 'http://x').searchParams.get('to') ?? '';
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>Elsewhere</title><script>location.href = ${JSON.stringify(to)};</script>`);
    });
    await new Promise<void>((resolve) => site.listen(0, resolve));
    // localhost, not 127.0.0.1: another site than the service's, not just another origin.
    siteUrl = `http://localhost:${(site.address() as AddressInfo).port}`;
    browser = await launchChromium({ hostRules: 'MAP *.example.test 127.0.0.1' });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    site?.close();
    clientSites?.close();
  });

  /** A profile signed in as alice through the operator's web client. */
  async function signedInContext(options: { bypassCSP?: boolean } = {}): Promise<{ context: BrowserContext; page: Page }> {
    // The clients' sites use a self-signed certificate.
    const context = await browser.newContext({ ignoreHTTPSErrors: true, ...options });
    const page = await context.newPage();
    await page.goto(authorizeUrl(server, webRequest({ scope: 'openid' }, 'browser-web', webRedirect).params));
    await page.getByLabel('Username').fill(alice.username);
    await page.getByLabel('Password').fill(alice.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.url().startsWith(webRedirect)).toBe(true);
    return { context, page };
  }

  const fromElsewhere = (page: Page, url: string) => page.goto(`${siteUrl}/go?to=${encodeURIComponent(url)}`);

  it('prompt=none from another site: consent_required at the redirect URI, no code', async () => {
    const { context, page } = await signedInContext();
    try {
      const { params } = webRequest({ prompt: 'none', scope: 'openid profile' }, clientId, rpRedirect);
      await fromElsewhere(page, authorizeUrl(server, params));
      await expect.poll(() => page.url().startsWith(rpRedirect)).toBe(true);
      const landed = new URL(page.url());
      expect(landed.searchParams.get('error')).toBe('consent_required');
      expect(landed.searchParams.get('state')).toBe(params.state);
      expect(landed.searchParams.has('code')).toBe(false);
    } finally {
      await context.close();
    }
  });

  it('without prompt=none: a consent page that says the client is not verified and names the redirect host', async () => {
    // axe-core is injected by script, which the page's CSP would refuse.
    const { context, page } = await signedInContext({ bypassCSP: true });
    try {
      await fromElsewhere(page, authorizeUrl(server, webRequest({ scope: 'openid profile' }, clientId, rpRedirect).params));
      await expect.poll(() => page.locator('h1').textContent()).toBe('Allow access?');
      await expect.poll(() => page.getByRole('alert').textContent()).toContain('registered itself with this service. The operator has not verified who runs it.');
      expect(await page.locator('strong.redirect-target').textContent()).toBe(new URL(rpRedirect).host);
      expect(await axeViolations(page)).toEqual([]);
      await page.getByRole('button', { name: 'Approve' }).click();
      await expect.poll(() => page.url().startsWith(rpRedirect)).toBe(true);
      expect(new URL(page.url()).searchParams.has('code')).toBe(true);
    } finally {
      await context.close();
    }
  });
});
