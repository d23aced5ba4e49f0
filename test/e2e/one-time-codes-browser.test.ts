/**
 * Issue 35 in Chromium, on a phone-sized screen (375 px): a client with `requireMfa` leads a
 * user the database keeps through setting up one-time codes (QR code, key, first code), the
 * recovery codes, the account page, and a later sign-in in German with a wrong code and then a
 * recovery code. axe-core checks every new page; none scrolls sideways.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret } from '../../src/sdk/hash.js';
import { axeContext, axeViolations } from '../support/accessibility.js';
import { addDatabaseUser, startCallbackApp, type CallbackApp } from '../support/browser-sign-in.js';
import { chromiumMissing, chromiumPath, launchChromium } from '../support/chromium.js';
import { startServer, type TestServer } from '../support/server.js';
import { authorizeUrl, signInClients, signInConfig, webRequest } from '../support/sign-in.js';
import { fromBase32, totpAt } from '../support/totp.js';

if (chromiumMissing) console.warn(`Skipping the one-time codes browser test: ${chromiumPath} is missing (apt-get install -y chromium).`);

const ivy = { subjectId: 'sub-ivy', username: 'ivy', password: 'ivy-password-1' };

describe.skipIf(chromiumMissing)('one-time codes in Chromium', () => {
  let server: TestServer;
  let browser: Browser;
  let app: CallbackApp;
  let callback: string;
  let recoveryCodes: string[] = [];

  beforeAll(async () => {
    app = await startCallbackApp();
    ({ callback } = app);
    server = await startServer(await signInConfig({
      clients: [
        ...signInClients,
        { clientId: 'payroll', clientName: 'Payroll', requireMfa: true, clientSecrets: [{ value: hashSecret('payroll-secret') }], allowedGrantTypes: ['authorization_code'], allowedScopes: ['openid', 'profile'], redirectUris: [callback] },
      ],
    }));
    await addDatabaseUser(server, ivy);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    app?.close();
  });

  async function checked(page: Page, heading: string): Promise<void> {
    await expect.poll(() => page.locator('h1').textContent()).toBe(heading);
    expect(await axeViolations(page)).toEqual([]);
    // Nothing wider than the phone's screen.
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
  }

  async function signIn(page: Page, submit: string, labels: [string, string] = ['Username', 'Password']): Promise<void> {
    await page.goto(authorizeUrl(server, webRequest({ scope: 'openid profile' }, 'payroll', callback).params));
    await page.getByLabel(labels[0]).fill(ivy.username);
    await page.getByLabel(labels[1]).fill(ivy.password);
    await page.getByRole('button', { name: submit }).click();
  }

  it('sets up one-time codes on the way to a client that requires them, then shows the recovery codes once; the account page makes new ones', async () => {
    const context = await axeContext(browser);
    try {
      const page = await context.newPage();
      await page.setViewportSize({ width: 375, height: 740 });
      await signIn(page, 'Sign in');
      await checked(page, 'Set up one-time codes');
      expect(await page.getByRole('img', { name: 'QR code to add this account to an authenticator app' }).isVisible()).toBe(true);
      const key = fromBase32((await page.locator('#totp-secret').textContent())!);
      await page.getByLabel('6-digit code from the app').fill('000000' === totpAt(key, Date.now()) ? '111111' : '000000');
      await page.getByRole('button', { name: 'Turn on one-time codes' }).click();
      await expect.poll(() => page.getByRole('alert').textContent()).toContain('That code is not right');
      await checked(page, 'Set up one-time codes');
      await page.getByLabel('6-digit code from the app').fill(totpAt(key, Date.now()));
      await page.getByRole('button', { name: 'Turn on one-time codes' }).click();
      await checked(page, 'Save your recovery codes');
      recoveryCodes = await page.locator('ol.recovery-codes li').allTextContents();
      expect(recoveryCodes).toHaveLength(10);
      await page.getByRole('button', { name: 'I have saved them, continue' }).click();
      await expect.poll(() => page.url().startsWith(callback)).toBe(true);

      await page.goto(`${server.url}/account/second-factor`);
      await checked(page, 'Second factor');
      expect(await page.locator('main').textContent()).toContain('10 of 10 recovery codes left.');
      await page.getByRole('button', { name: 'Make new recovery codes' }).click();
      await checked(page, 'Save your recovery codes');
      const fresh = await page.locator('ol.recovery-codes li').allTextContents();
      expect(fresh).toHaveLength(10);
      expect(fresh.some((c) => recoveryCodes.includes(c))).toBe(false);
      recoveryCodes = fresh;
    } finally {
      await context.close();
    }
  });

  it('asks for the code in German; a wrong one is announced; a recovery code signs in', async () => {
    const context = await axeContext(browser, { locale: 'de-DE' });
    try {
      const page = await context.newPage();
      await page.setViewportSize({ width: 375, height: 740 });
      await signIn(page, 'Anmelden', ['Benutzername', 'Passwort']);
      await checked(page, 'Einmalcode eingeben');
      await page.getByLabel('Einmalcode oder Wiederherstellungscode').fill('123456');
      await page.getByRole('button', { name: 'Weiter' }).click();
      await expect.poll(() => page.getByRole('alert').textContent()).toContain('Dieser Code stimmt nicht');
      await checked(page, 'Einmalcode eingeben');
      await page.getByLabel('Einmalcode oder Wiederherstellungscode').fill(recoveryCodes[0]!);
      await page.getByRole('button', { name: 'Weiter' }).click();
      await expect.poll(() => page.url().startsWith(callback)).toBe(true);
    } finally {
      await context.close();
    }
  });
});
