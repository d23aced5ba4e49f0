/**
 * "Forgot password?" in Chromium (issue 34): from the sign-in page's link a person asks for a
 * reset, the test reads the mail a real SMTP server on loopback received (STARTTLS, AUTH),
 * the browser follows its link, sets a new password and signs in to the client with it; the
 * old password is refused, the link works once. The pages have no serious axe finding.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/oauth/password-hash.js';
import { hashSecret } from '../../src/sdk/hash.js';
import { chromiumMissing, chromiumPath, launchChromium } from '../support/chromium.js';
import { startServer, type TestServer } from '../support/server.js';
import { authorizeUrl, signInClients, signInConfig, webRequest } from '../support/sign-in.js';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp.js';
import { axeContext, axeViolations } from '../support/accessibility.js';

if (chromiumMissing) console.warn(`Skipping the password reset browser test: ${chromiumPath} is missing (apt-get install -y chromium).`);

describe.skipIf(chromiumMissing)('Forgot password? in Chromium', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-reset-browser-'));
  let smtp: TestSmtpServer;
  let server: TestServer;
  let browser: Browser;
  let app: Server;
  let callback: string;

  beforeAll(async () => {
    app = createServer((_req, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>App</title><h1>Signed in</h1>'));
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    callback = `http://127.0.0.1:${(app.address() as AddressInfo).port}/callback`;
    smtp = await startSmtpServer(dir);
    server = await startServer(await signInConfig({
      smtp: { host: 'localhost', port: smtp.port, auth: { user: smtp.user, password: smtp.password }, from: 'no-reply@example.com', caFile: smtp.caFile },
      clients: [
        ...signInClients,
        { clientId: 'browser-web', clientSecrets: [{ value: hashSecret('browser-secret') }], allowedGrantTypes: ['authorization_code'], allowedScopes: ['openid'], redirectUris: [callback] },
      ],
    }));
    await server.app.store.users.add({
      subjectId: 'sub-lena', username: 'lena', email: 'lena@example.com', emailVerified: true, claims: {}, disabled: false,
      passwordHash: await hashPassword('lena-password-1', { ln: 4, r: 8, p: 1 }), createdAt: Date.now(),
    });
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await smtp?.close();
    app?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function signIn(page: Page, password: string): Promise<void> {
    await page.goto(authorizeUrl(server, webRequest({ scope: 'openid' }, 'browser-web', callback).params));
    await expect.poll(() => page.locator('h1').textContent()).toBe('Sign in');
    await page.getByLabel('Username').fill('lena');
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  it('asks for a link, follows the mailed link, sets a new password and signs in with it', async () => {
    const context = await axeContext(browser);
    try {
      const page = await context.newPage();
      await page.goto(authorizeUrl(server, webRequest({ scope: 'openid' }, 'browser-web', callback).params));
      await page.getByRole('link', { name: 'Forgot password?' }).click();
      await expect.poll(() => page.locator('h1').textContent()).toBe('Reset your password');
      expect(await axeViolations(page)).toEqual([]);
      const arriving = smtp.next('lena@example.com');
      await page.getByLabel('Username or e-mail address').fill('lena@example.com');
      await page.getByRole('button', { name: 'Send the link' }).click();
      await expect.poll(() => page.locator('h1').textContent()).toBe('Check your e-mail');

      const link = /(http:\/\/\S+\/account\/password-reset\?token=\S+)/.exec((await arriving).text)?.[1];
      expect(link).toBeDefined();
      await page.goto(link!);
      await expect.poll(() => page.locator('h1').textContent()).toBe('Set a new password');
      expect(await axeViolations(page)).toEqual([]);
      await page.getByLabel('New password', { exact: true }).fill('lena-password-2');
      await page.getByLabel('New password again').fill('lena-password-2');
      await page.getByRole('button', { name: 'Set password' }).click();
      await expect.poll(() => page.locator('h1').textContent()).toBe('Password set');

      await signIn(page, 'lena-password-1');
      await expect.poll(() => page.getByRole('alert').textContent()).toContain('The username or password is incorrect.');
      await signIn(page, 'lena-password-2');
      await expect.poll(() => page.url().startsWith(callback)).toBe(true);
      expect(new URL(page.url()).searchParams.get('code')).toBeTruthy();

      await page.goto(link!);
      await expect.poll(() => page.locator('h1').textContent()).toBe('Link not usable');
    } finally {
      await context.close();
    }
  }, 90_000);
});
