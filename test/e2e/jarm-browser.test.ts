/**
 * JARM's `form_post.jwt` in a real browser (Debian's Chromium, playwright-core): after sign-in
 * the form_post page submits itself with its one hashed script (CSP), and the client's site
 * receives a single `response` field, a JWT it verifies with the service's JWKS. With
 * `query.jwt` the browser lands on the redirect URI with `?response=` only.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { chromium, type Browser, type Page } from 'playwright-core';
import { hashSecret } from '../../src/sdk/hash.js';
import { startServer, type TestServer } from '../support/server.js';
import { alice, authorizeUrl, signInClients, signInConfig, webRequest } from '../support/sign-in.js';

const executablePath = '/usr/bin/chromium';
const chromiumMissing = !existsSync(executablePath) && process.env.CI !== 'true';
if (chromiumMissing) console.warn(`Skipping the JARM browser test: ${executablePath} is missing (apt-get install -y chromium).`);

describe.skipIf(chromiumMissing)('JARM in Chromium', () => {
  let server: TestServer;
  let browser: Browser;
  let site: Server;
  let redirectUri: string;
  const posted: string[] = [];

  beforeAll(async () => {
    site = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        if (req.method === 'POST') posted.push(body);
        res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Client</title><h1>Client</h1>');
      });
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    redirectUri = `http://127.0.0.1:${(site.address() as AddressInfo).port}/callback`;
    server = await startServer(await signInConfig({
      clients: [
        ...signInClients,
        {
          clientId: 'jarm-web', clientName: 'JARM web app', clientSecrets: [{ value: hashSecret('jarm-secret') }],
          allowedGrantTypes: ['authorization_code'], allowedScopes: ['openid', 'profile'], redirectUris: [redirectUri],
        },
      ],
    }));
    browser = await chromium.launch({
      executablePath,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    site?.close();
  });

  async function signIn(page: Page): Promise<void> {
    await expect.poll(() => page.locator('h1').textContent()).toBe('Sign in');
    await page.getByLabel('Username').fill(alice.username);
    await page.getByLabel('Password').fill(alice.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  const verify = (jwt: string) =>
    jwtVerify(jwt, createRemoteJWKSet(new URL(`${server.url}/.well-known/openid-configuration/jwks`)), { issuer: server.url, audience: 'jarm-web', algorithms: ['RS256'] });

  it('form_post.jwt submits itself: the site receives one response field with the code, state and iss', async () => {
    const context = await browser.newContext({ javaScriptEnabled: true });
    try {
      const page = await context.newPage();
      const { params } = webRequest({ response_mode: 'form_post.jwt' }, 'jarm-web', redirectUri);
      await page.goto(authorizeUrl(server, params));
      await signIn(page);
      await expect.poll(() => posted.length).toBe(1);
      const fields = new URLSearchParams(posted[0]);
      expect([...fields.keys()]).toEqual(['response']);
      const { payload } = await verify(fields.get('response')!);
      expect(payload).toMatchObject({ code: expect.stringMatching(/^[\w-]+$/), state: params.state, iss: server.url, aud: 'jarm-web' });
    } finally {
      await context.close();
    }
  });

  it('response_mode=jwt (query.jwt) lands on the redirect URI with response only', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    try {
      const page = await context.newPage();
      const { params } = webRequest({ response_mode: 'jwt' }, 'jarm-web', redirectUri);
      await page.goto(authorizeUrl(server, params));
      await signIn(page);
      await expect.poll(() => new URL(page.url()).pathname).toBe('/callback');
      const landed = new URL(page.url());
      expect([...landed.searchParams.keys()]).toEqual(['response']);
      expect((await verify(landed.searchParams.get('response')!)).payload).toMatchObject({ state: params.state, iss: server.url });
    } finally {
      await context.close();
    }
  });
});
