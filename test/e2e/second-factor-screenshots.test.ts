/**
 * The pictures of docs/guides/passkeys-and-one-time-codes.md (issue 35), taken in Chromium: the
 * page that sets up one-time codes (QR code), the code step (with a passkey beside it) and the
 * account page with a passkey, each at a desktop width (1024 px) and on a phone (375 px), put
 * side by side in one PNG. Chromium itself lays the two out (a page of two images), so no image
 * library is needed. They go to a temporary directory, and with SECOND_FACTOR_SCREENSHOT_DOCS=1
 * to docs/ as well:
 *
 *   SECOND_FACTOR_SCREENSHOT_DOCS=1 npx vitest run test/e2e/second-factor-screenshots.test.ts
 *
 * The test checks what each picture shows (its heading, no axe violation, nothing wider than
 * the phone) and that each file is a PNG of both widths.
 */
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret } from '../../src/sdk/hash.js';
import { axeViolations } from '../support/accessibility.js';
import { startPasskeyBrowser, type AuthenticatorPage, type PasskeyBrowser } from '../support/browser-sign-in.js';
import { chromiumMissing, chromiumPath } from '../support/chromium.js';
import { repoRoot } from '../support/server.js';
import { webRequest } from '../support/sign-in.js';
import { fromBase32, totpAt } from '../support/totp.js';

if (chromiumMissing) console.warn(`Skipping the second-factor screenshots: ${chromiumPath} is missing (apt-get install -y chromium).`);

const ada = { subjectId: 'sub-ada', username: 'ada', password: 'ada-password-1' };
const desktop = { width: 1024, height: 720 };
const phone = { width: 375, height: 720 };

describe.skipIf(chromiumMissing)('second-factor screenshots for the guide', () => {
  let issuer: string;
  let passkeyBrowser: PasskeyBrowser;
  let callback: string;
  let context: BrowserContext;
  let page: Page;
  let presence: AuthenticatorPage['presence'];
  const shots = mkdtempSync(join(tmpdir(), 'svc-second-factor-screens-'));

  beforeAll(async () => {
    passkeyBrowser = await startPasskeyBrowser({
      clients: (redirectUri) => [
        { clientId: 'payroll', clientName: 'Payroll', requireMfa: true, clientSecrets: [{ value: hashSecret('payroll-secret') }], allowedGrantTypes: ['authorization_code'], allowedScopes: ['openid', 'profile'], redirectUris: [redirectUri] },
      ],
      user: ada,
    });
    ({ issuer, callback, context, page, presence } = passkeyBrowser);
    console.info(`second-factor screenshots: ${shots}`);
  });
  afterAll(async () => {
    await passkeyBrowser?.close();
  });

  const authorize = () => `${issuer}/connect/authorize?${new URLSearchParams(webRequest({ scope: 'openid profile' }, 'payroll', callback).params)}`;

  /** The page now, at both widths (checked at each), side by side in `docs/<name>`. */
  async function picture(heading: string, name: string): Promise<void> {
    const images: string[] = [];
    for (const size of [desktop, phone]) {
      await page.setViewportSize(size);
      await expect.poll(() => page.locator('h1').textContent()).toBe(heading);
      expect(await axeViolations(page)).toEqual([]);
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(size.width);
      images.push((await page.screenshot({ fullPage: true })).toString('base64'));
    }
    const sheet = await context.newPage();
    try {
      await sheet.setViewportSize({ width: desktop.width + phone.width + 72, height: 400 });
      await sheet.setContent(`<!doctype html><body style="margin:0;padding:24px;display:flex;gap:24px;align-items:flex-start;background:#d1d5db">${
        images.map((b64) => `<img src="data:image/png;base64,${b64}" style="display:block;box-shadow:0 1px 4px rgba(0,0,0,.3)">`).join('')}</body>`);
      const png = await sheet.screenshot({ fullPage: true });
      writeFileSync(join(shots, name), png);
    } finally {
      await sheet.close();
    }
    const file = readFileSync(join(shots, name));
    expect(file.subarray(1, 4).toString()).toBe('PNG');
    expect(file.readUInt32BE(16)).toBe(desktop.width + phone.width + 72);
    if (process.env.SECOND_FACTOR_SCREENSHOT_DOCS === '1') copyFileSync(join(shots, name), join(repoRoot, 'docs', name));
  }

  it('setting up one-time codes: the QR code and the key', async () => {
    await presence(false);
    await page.setViewportSize(desktop);
    await page.goto(authorize());
    await page.getByLabel('Username').fill(ada.username);
    await page.getByLabel('Password').fill(ada.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await picture('Set up one-time codes', 'one-time-codes-setup.png');

    const key = fromBase32((await page.locator('#totp-secret').textContent())!);
    await page.getByLabel('6-digit code from the app').fill(totpAt(key, Date.now()));
    await page.getByRole('button', { name: 'Turn on one-time codes' }).click();
    await expect.poll(() => page.locator('h1').textContent()).toBe('Save your recovery codes');
    await page.getByRole('button', { name: 'I have saved them, continue' }).click();
    await expect.poll(() => page.url().startsWith(callback)).toBe(true);
  });

  it('the account page with a passkey added', async () => {
    await presence(true);
    await page.goto(`${issuer}/account/second-factor`);
    await page.getByLabel('Name for a new passkey').fill('Work laptop');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Passkey added.');
    await picture('Second factor', 'passkeys.png');
  });

  it('the code step, with the passkey beside the code field', async () => {
    await context.clearCookies();
    // Nobody picks the passkey the username field offers: the password, then the second step.
    await presence(false);
    await page.setViewportSize(desktop);
    await page.goto(authorize());
    await page.getByLabel('Username').fill(ada.username);
    await page.getByLabel('Password').fill(ada.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Use a passkey' }).isVisible()).toBe(true);
    await picture('Enter your one-time code', 'one-time-codes.png');
  });
});
