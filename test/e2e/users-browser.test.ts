/**
 * Issue 34 in Chromium: a user added with `svc users add` (the real CLI, against the SQLite file
 * the service reads) signs in to a client in the authorization code flow; disabled with
 * `svc users disable`, the same user's session is gone and the sign-in page refuses them.
 * Another changes their password on /account/password and signs in with the new one.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret } from '../../src/sdk/hash.js';
import { chromiumMissing, chromiumPath, launchChromium } from '../support/chromium.js';
import { basic, postForm, startServer, type TestServer } from '../support/server.js';
import { authorizeUrl, signInClients, signInConfig, webRequest } from '../support/sign-in.js';
import { runCliWith } from '../support/svc-process.js';
import { testKeyFiles } from '../support/test-keys.js';
import { axeContext, axeViolations } from '../support/accessibility.js';

if (chromiumMissing) console.warn(`Skipping the users browser test: ${chromiumPath} is missing (apt-get install -y chromium).`);

const frank = { username: 'frank', password: 'frank-password-1' };

describe.skipIf(chromiumMissing)('a user added with svc users, in Chromium', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-users-browser-'));
  const configFile = join(dir, 'svc.config.json');
  let server: TestServer;
  let browser: Browser;
  let app: Server;
  let callback: string;
  let subject: string;
  const svc = (input: string, ...args: string[]) => runCliWith({ input }, 'users', ...args, '--config', configFile);

  beforeAll(async () => {
    // The client's own site: a page at its redirect URI.
    app = createServer((_req, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>App</title><h1>Signed in</h1>'));
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    callback = `http://127.0.0.1:${(app.address() as AddressInfo).port}/callback`;
    const config = await signInConfig({
      store: `sqlite:${join(dir, 'svc.db')}`,
      signing: { keys: testKeyFiles(dir) },
      clients: [
        ...signInClients,
        { clientId: 'browser-web', clientSecrets: [{ value: hashSecret('browser-secret') }], allowedGrantTypes: ['authorization_code'], allowedScopes: ['openid', 'profile'], redirectUris: [callback] },
      ],
    });
    server = await startServer(config);
    writeFileSync(configFile, JSON.stringify({ ...config, issuer: server.url }));
    const added = await svc(frank.password, 'add', frank.username, '--claim', 'name=Frank Example', '--json');
    expect(added.code, added.stderr).toBe(0);
    subject = (JSON.parse(added.stdout) as { subjectId: string }).subjectId;
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    app?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function signIn(page: Page, params: Record<string, string>): Promise<void> {
    await page.goto(authorizeUrl(server, params));
    await expect.poll(() => page.locator('h1').textContent()).toBe('Sign in');
    await page.getByLabel('Username').fill(frank.username);
    await page.getByLabel('Password').fill(frank.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  it('signs in to the client in the code flow; disabled, their session is gone and the page refuses them', async () => {
    let context: BrowserContext | undefined;
    try {
      context = await browser.newContext();
      const page = await context.newPage();
      const flow = webRequest({ scope: 'openid profile' }, 'browser-web', callback);
      await signIn(page, flow.params);
      await expect.poll(() => page.url().startsWith(callback)).toBe(true);
      const code = new URL(page.url()).searchParams.get('code')!;
      const tokens = await postForm(`${server.url}/connect/token`, { grant_type: 'authorization_code', code, redirect_uri: callback, code_verifier: flow.verifier }, {
        authorization: basic('browser-web', 'browser-secret'),
      });
      expect(tokens.status).toBe(200);
      expect(decodeJwt(tokens.body.id_token as string)).toMatchObject({ sub: subject, name: 'Frank Example' });

      const disabled = await svc('', 'disable', frank.username);
      expect(disabled.stdout).toMatch(/^user "frank" disabled; [1-9]\d* sessions? and tokens? ended\.\n$/);

      // The same browser: no session any more, so the sign-in page, and the password is refused there.
      await signIn(page, webRequest({ scope: 'openid profile' }, 'browser-web', callback).params);
      await expect.poll(() => page.getByRole('alert').textContent()).toContain('The username or password is incorrect.');
      expect(page.url().startsWith(callback)).toBe(false);
      expect(await page.locator('h1').textContent()).toBe('Sign in');
    } finally {
      await context?.close();
    }
  }, 90_000);

  it('a user changes their password on the account page (no serious axe finding), then signs in with the new one', async () => {
    const added = await svc('gina-password-1', 'add', 'gina');
    expect(added.code, added.stderr).toBe(0);
    const context = await axeContext(browser);
    try {
      const page = await context.newPage();
      await page.goto(`${server.url}/account/password`);
      expect(await page.locator('h1').textContent()).toBe('Change your password');
      expect(await axeViolations(page)).toEqual([]);
      await page.getByLabel('Username').fill('gina');
      await page.getByLabel('Current password').fill('gina-password-1');
      await page.getByLabel('New password', { exact: true }).fill('gina-password-2');
      await page.getByLabel('New password again').fill('gina-password-2');
      await page.getByRole('button', { name: 'Change password' }).click();
      await expect.poll(() => page.locator('h1').textContent()).toBe('Password changed');

      await page.goto(authorizeUrl(server, webRequest({ scope: 'openid' }, 'browser-web', callback).params));
      await page.getByLabel('Username').fill('gina');
      await page.getByLabel('Password').fill('gina-password-2');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect.poll(() => page.url().startsWith(callback)).toBe(true);
      expect(new URL(page.url()).searchParams.has('code')).toBe(true);
    } finally {
      await context.close();
    }
  }, 90_000);
});
