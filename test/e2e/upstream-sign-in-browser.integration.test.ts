/**
 * Issue 34 in a real browser (Debian's Chromium, playwright-core): our sign-in page's
 * "Sign in with Contoso" button, node-oidc-provider's own login and consent pages, back through
 * our callback to the client with a code. The browser enforces what curl does not: the page's
 * Content-Security-Policy must let the button's POST be redirected to the provider.
 */
import { decodeJwt } from 'jose';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeContext, axeViolations } from '../support/accessibility.js';
import { chromiumMissing, launchChromium } from '../support/chromium.js';
import { startServer, type TestServer } from '../support/server.js';
import { authorizeUrl, redeemWeb, signInConfig, webRedirect, webRequest } from '../support/sign-in.js';
import { reservePort, startNodeOidcProvider, type OidcUpstream } from '../support/upstream-providers.js';

describe.skipIf(chromiumMissing)('upstream sign-in in Chromium', () => {
  let server: TestServer;
  let corp: OidcUpstream;
  let browser: Browser;

  beforeAll(async () => {
    const port = await reservePort();
    server = await startServer(await signInConfig({
      identityProviders: [{ name: 'corp', displayName: 'Contoso', type: 'oidc', issuer: `http://127.0.0.1:${port}`, clientId: 'svc', clientSecret: 'upstream-secret' }],
    }));
    corp = await startNodeOidcProvider(port, `${server.url}/connect/authorize/callback`, { alice: { email: 'alice@example.com', email_verified: true } });
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await Promise.all([server?.close(), corp?.close()]);
  });

  it('signs in through node-oidc-provider\'s own login form', async () => {
    const context = await browser.newContext();
    const violations: string[] = [];
    const page = await context.newPage();
    // Only the CSP's refusals: node-oidc-provider's pages also ask for a web font, offline here.
    page.on('console', (m) => (m.type() === 'error' && m.text().includes('Content Security Policy') ? violations.push(m.text()) : undefined));
    // The client's site is not running: the browser's arrival there is the end of the walk.
    await context.route(`${webRedirect}**`, (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>Client</title>' }));
    const flow = webRequest();
    await page.goto(authorizeUrl(server, flow.params));
    await page.getByRole('button', { name: 'Sign in with Contoso' }).click();
    await page.waitForURL(`${corp.url}/**`, { timeout: 10_000 }).catch((e: unknown) => { throw new Error(`${page.url()} ${violations.join(' | ')} ${String(e)}`); });
    await page.locator('input[name="login"]').fill('alice');
    await page.locator('input[name="password"]').fill('any password');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL(`${webRedirect}**`);
    expect(violations).toEqual([]);
    const code = new URL(page.url()).searchParams.get('code')!;
    const tokens = await redeemWeb(server, code, flow.verifier);
    expect(tokens.status).toBe(200);
    expect(decodeJwt(tokens.body.id_token as string).sub).toMatch(/^[\w-]{22}$/); // a user kept with the service's users: 128 random bits
    await context.close();
  });

  it('the sign-in page with provider buttons passes axe-core', async () => {
    const context = await axeContext(browser);
    const page = await context.newPage();
    await page.goto(authorizeUrl(server, webRequest().params));
    expect(await axeViolations(page)).toEqual([]);
    await context.close();
  });
});
