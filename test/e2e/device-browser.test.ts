/**
 * The device flow end to end in a real browser: Debian's Chromium driven by playwright-core.
 * The device asks for codes over HTTP; a person opens verification_uri_complete, signs in and
 * approves (or denies); the device's poll gets the answer. The approval runs with JavaScript
 * off, the denial on a phone-sized screen. Screenshots of every step go to a temp folder
 * (printed); with DEVICE_SCREENSHOT_DOCS=1 the consent page is also copied to docs/device-flow.png.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import { chromium, type Browser, type Page } from 'playwright-core';
import { repoRoot, startServer, type TestServer } from '../support/server.js';
import { axeContext, axeViolations, computedStyle, expectBorder, expectFocusRing } from '../support/accessibility.js';
import { alice, bob, codesFor, deviceConfig, manualClock, poll } from '../device/helpers.js';

const executablePath = '/usr/bin/chromium';
const chromiumMissing = !existsSync(executablePath) && process.env.CI !== 'true';
if (chromiumMissing) console.warn(`Skipping the device flow browser test: ${executablePath} is missing (apt-get install -y chromium).`);

describe.skipIf(chromiumMissing)('device flow in Chromium', () => {
  let server: TestServer;
  let browser: Browser;
  const shots = mkdtempSync(join(tmpdir(), 'svc-device-screens-'));
  // Lets the poller keep the interval without sleeping.
  const clock = manualClock();

  beforeAll(async () => {
    server = await startServer(await deviceConfig(), { clock });
    browser = await chromium.launch({
      executablePath,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    console.info(`device flow screenshots: ${shots}`);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const shoot = (page: Page, name: string) => page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });

  it('approve: the poller gets a token whose sub is the user who signed in (JavaScript off)', async () => {
    const codes = await codesFor(server, { client_id: 'tv', scope: 'openid profile offline_access api1.read' });
    // Each context is a fresh profile: no cookies, no storage.
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 800, height: 760 } });
    try {
      const page = await context.newPage();
      await page.goto(codes.verification_uri_complete);
      await expect.poll(() => page.getByLabel('Code').inputValue()).toBe(codes.user_code);
      await shoot(page, '1-enter-code');
      await page.getByRole('button', { name: 'Continue' }).click();

      await expect.poll(() => page.locator('h1').textContent()).toBe('Sign in');
      await page.getByLabel('Username').fill(alice.username);
      await page.getByLabel('Password').fill(alice.password);
      await shoot(page, '2-sign-in');
      await page.getByRole('button', { name: 'Sign in' }).click();

      await expect.poll(() => page.locator('h1').textContent()).toBe('Allow access?');
      expect(await page.locator('main').textContent()).toContain('Living room TV');
      expect(await page.locator('ul.scopes li').allTextContents()).toEqual([
        'Know who you are (your user id)openid', 'Your nameprofile', 'Keep access when you are not using itoffline_access', 'Read your data in API 1api1.read',
      ]);
      await shoot(page, '3-consent');
      if (process.env.DEVICE_SCREENSHOT_DOCS === '1') {
        mkdirSync(join(repoRoot, 'docs'), { recursive: true });
        copyFileSync(join(shots, '3-consent.png'), join(repoRoot, 'docs', 'device-flow.png'));
      }

      expect((await poll(server, codes.device_code)).body.error).toBe('authorization_pending');
      await page.getByRole('button', { name: 'Approve' }).click();
      await expect.poll(() => page.locator('h1').textContent()).toBe('Device connected');
      await shoot(page, '4-approved');

      const cookie = (await context.cookies()).find((c) => c.name === 'svc_session');
      expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/', secure: false });
    } finally {
      await context.close();
    }

    clock.advance(5);
    const res = await poll(server, codes.device_code);
    expect(res.status).toBe(200);
    expect(decodeJwt(res.body.access_token as string).sub).toBe(alice.subjectId);
    expect(decodeJwt(res.body.id_token as string).sub).toBe(alice.subjectId);
    expect(res.body.refresh_token).toEqual(expect.any(String));
  });

  it('deny: the poller gets access_denied (phone-sized screen, nothing wider than it)', async () => {
    const codes = await codesFor(server, { client_id: 'tv', scope: 'api1.read' });
    const context = await browser.newContext({ viewport: { width: 375, height: 700 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
    try {
      const page = await context.newPage();
      await page.goto(codes.verification_uri_complete);
      const fitsTheScreen = () => page.evaluate<boolean>('document.documentElement.scrollWidth <= window.innerWidth');
      expect(await fitsTheScreen()).toBe(true);
      await shoot(page, '5-phone-enter-code');
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByLabel('Username').fill(bob.username);
      await page.getByLabel('Password').fill(bob.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect.poll(() => page.locator('h1').textContent()).toBe('Allow access?');
      expect(await fitsTheScreen()).toBe(true);
      await shoot(page, '6-phone-consent');
      await page.getByRole('button', { name: 'Deny' }).click();
      await expect.poll(() => page.locator('h1').textContent()).toBe('Request denied');
      await shoot(page, '7-phone-denied');
    } finally {
      await context.close();
    }

    const res = await poll(server, codes.device_code);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('access_denied');
  });

  it('shows a plain message for an unknown code', async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${server.url}/device?user_code=BBBB-BBBB`);
      await page.getByRole('button', { name: 'Continue' }).click();
      await expect.poll(() => page.getByRole('alert').textContent()).toBe('That code is not valid. Check the code shown on your device and try again.');
      await shoot(page, '8-unknown-code');
    } finally {
      await context.close();
    }
  });

  describe('accessibility', () => {
    it('has no serious or critical axe-core violations in any state, in English and in German', async () => {
      const codes = await codesFor(server, { client_id: 'tv', scope: 'openid profile offline_access api1.read' });
      const denied = await codesFor(server, { client_id: 'tv', scope: 'api1.read' });
      const found: Record<string, string[]> = {};
      const context = await axeContext(browser);
      try {
        const page = await context.newPage();
        const check = async (state: string, heading: string) => {
          await expect.poll(() => page.locator('h1').textContent()).toBe(heading);
          found[state] = await axeViolations(page);
        };
        await page.goto(`${server.url}/device`);
        await check('enter code', 'Connect a device');
        await page.getByLabel('Code').fill('BBBB-BBBB');
        await page.getByRole('button', { name: 'Continue' }).click();
        await expect.poll(() => page.getByRole('alert').count()).toBe(1);
        await check('enter code, with an error notice', 'Connect a device');
        await page.getByLabel('Code').fill(codes.user_code);
        await page.getByRole('button', { name: 'Continue' }).click();
        await check('sign in', 'Sign in');
        await page.getByLabel('Username').fill(alice.username);
        await page.getByLabel('Password').fill('wrong');
        await page.getByRole('button', { name: 'Sign in' }).click();
        await expect.poll(() => page.getByRole('alert').count()).toBe(1);
        await check('sign in, with an error notice', 'Sign in');
        await page.getByLabel('Password').fill(alice.password);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await check('consent', 'Allow access?');
        await page.getByRole('button', { name: 'Approve' }).click();
        await check('done', 'Device connected');

        await page.goto(`${server.url}/device?ui_locales=de&user_code=${denied.user_code}`);
        await check('German: enter code', 'Gerät verbinden');
        await page.getByRole('button', { name: 'Weiter' }).click();
        await check('German: consent', 'Zugriff erlauben?');
        await page.getByRole('button', { name: 'Ablehnen' }).click();
        await check('German: denied', 'Anfrage abgelehnt');

        // The error page: a form whose session is gone.
        await page.goto(`${server.url}/device`);
        await context.clearCookies();
        await page.getByLabel('Code').fill('BBBB-BBBB');
        await page.getByRole('button', { name: 'Continue' }).click();
        await check('error', 'Please start again');
      } finally {
        await context.close();
      }
      expect(found).toEqual(Object.fromEntries(Object.keys(found).map((state) => [state, []])));
      expect(Object.keys(found)).toHaveLength(10);
    });

    it('draws the focus ring, input borders and the error notice\'s border at 3:1 or more (WCAG 2.2, 1.4.11)', async () => {
      const context = await axeContext(browser);
      try {
        const page = await context.newPage();
        await page.goto(`${server.url}/device`);
        await page.getByLabel('Code').fill('BBBB-BBBB');
        await page.getByRole('button', { name: 'Continue' }).click();
        await expect.poll(() => page.getByRole('alert').count()).toBe(1);
        const card = await computedStyle(page, 'main', 'background-color');
        await expectBorder(page, '#user_code', card);
        await expectBorder(page, '.notice', card);
        for (const target of ['#user_code', 'button[type=submit]']) await expectFocusRing(page, target, card);
      } finally {
        await context.close();
      }
    });
  });
});
