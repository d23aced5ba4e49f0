/**
 * The sign-in flow end to end in a real browser: Debian's Chromium driven by playwright-core.
 * A web client starts the flow, the person signs in (and consents), the browser lands on the
 * redirect URI (answered by a route in the browser: the client's site is not running), and the
 * client trades the code for tokens. Also: deny, prompt=none with and without a session,
 * form_post with JavaScript, logout; axe-core and the non-text contrasts on every page state, in
 * English and German. Screenshots of every page go to a temp folder (printed);
 * with SIGNIN_SCREENSHOT_DOCS=1 the sign-in page is also copied to docs/sign-in.png.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { repoRoot, startServer, type TestServer } from '../support/server.js';
import { hashSecret } from '../../src/sdk/hash.js';
import { postForm } from '../support/server.js';
import { alice, authorizeUrl, bob, signInClients, signInConfig, webRequest } from '../support/sign-in.js';
import { axeContext, axeViolations, computedStyle, expectBorder, expectFocusRing } from '../support/accessibility.js';

const executablePath = '/usr/bin/chromium';
const chromiumMissing = !existsSync(executablePath) && process.env.CI !== 'true';
if (chromiumMissing) console.warn(`Skipping the sign-in browser test: ${executablePath} is missing (apt-get install -y chromium).`);

describe.skipIf(chromiumMissing)('sign-in in Chromium', () => {
  let server: TestServer;
  let browser: Browser;
  /** The clients' own site on loopback: it answers every page and records form posts. */
  let site: Server;
  let siteUrl: string;
  const posted: string[] = [];
  let webRedirect: string;
  let spaRedirect: string;
  const shots = mkdtempSync(join(tmpdir(), 'svc-sign-in-screens-'));

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
    siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    webRedirect = `${siteUrl}/callback`;
    spaRedirect = `${siteUrl}/spa/callback`;
    server = await startServer(await signInConfig({
      clients: [
        ...signInClients,
        {
          clientId: 'browser-web', clientName: 'Demo web app', clientSecrets: [{ value: hashSecret('browser-secret') }],
          allowedGrantTypes: ['authorization_code'], allowedScopes: ['openid', 'profile', 'api1.read'], allowOfflineAccess: true,
          redirectUris: [webRedirect], postLogoutRedirectUris: [`${siteUrl}/signed-out`],
        },
        {
          clientId: 'browser-spa', clientName: 'Demo SPA', requireClientSecret: false, requireConsent: true,
          allowedGrantTypes: ['authorization_code'], allowedScopes: ['openid', 'api1.read'], redirectUris: [spaRedirect],
        },
      ],
    }));
    browser = await chromium.launch({
      executablePath,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    console.info(`sign-in screenshots: ${shots}`);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    site?.close();
  });

  const web = (extra: Record<string, string> = {}) => webRequest(extra, 'browser-web', webRedirect);
  const redeem = (code: string, verifier: string) =>
    postForm(`${server.url}/connect/token`, { grant_type: 'authorization_code', code, redirect_uri: webRedirect, code_verifier: verifier }, {
      authorization: `Basic ${Buffer.from('browser-web:browser-secret').toString('base64')}`,
    });

  const shoot = (page: Page, name: string) => page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });

  /** A fresh profile: no cookies, no storage. */
  async function newContext(javaScriptEnabled: boolean): Promise<{ context: BrowserContext }> {
    return { context: await browser.newContext({ javaScriptEnabled, viewport: { width: 800, height: 760 } }) };
  }

  async function signIn(page: Page, shotPrefix?: string): Promise<void> {
    await expect.poll(() => page.locator('h1').textContent()).toBe('Sign in');
    await page.getByLabel('Username').fill(alice.username);
    await page.getByLabel('Password').fill(alice.password);
    if (shotPrefix) await shoot(page, `${shotPrefix}-sign-in`);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  const landedOn = (page: Page): URL => new URL(page.url());

  it('signs in (JavaScript off), lands on the redirect URI with code, state and iss; the client trades the code', async () => {
    const { context } = await newContext(false);
    try {
      const page = await context.newPage();
      const { params, verifier } = web({ scope: 'openid profile offline_access' });
      await page.goto(authorizeUrl(server, params));
      await signIn(page, '1');
      if (process.env.SIGNIN_SCREENSHOT_DOCS === '1') {
        mkdirSync(join(repoRoot, 'docs'), { recursive: true });
        copyFileSync(join(shots, '1-sign-in.png'), join(repoRoot, 'docs', 'sign-in.png'));
      }
      await expect.poll(() => landedOn(page).origin + landedOn(page).pathname).toBe(webRedirect);
      const at = landedOn(page);
      expect(at.searchParams.get('state')).toBe(params.state);
      expect(at.searchParams.get('iss')).toBe(server.url);
      const tokens = await redeem(at.searchParams.get('code')!, verifier);
      expect(tokens.status).toBe(200);
      expect(decodeJwt(tokens.body.id_token as string)).toMatchObject({ sub: alice.subjectId, nonce: params.nonce });
      const cookie = (await context.cookies()).find((c) => c.name === 'svc_session');
      expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/', secure: false });
    } finally {
      await context.close();
    }
  });

  it('consent: deny lands on the redirect URI with access_denied (phone-sized screen)', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 375, height: 700 } });
    try {
      const page = await context.newPage();
      const { params } = webRequest({ scope: 'openid api1.read' }, 'browser-spa', spaRedirect);
      await page.goto(authorizeUrl(server, params));
      await signIn(page);
      await expect.poll(() => page.locator('h1').textContent()).toBe('Allow access?');
      expect(await page.locator('ul.scopes li').allTextContents()).toEqual(['Know who you are (your user id)openid', 'Read your data in API 1api1.read']);
      await shoot(page, '2-consent');
      await page.getByRole('button', { name: 'Deny' }).click();
      await expect.poll(() => landedOn(page).searchParams.get('error')).toBe('access_denied');
      expect(landedOn(page).searchParams.get('state')).toBe(params.state);
    } finally {
      await context.close();
    }
  });

  it('prompt=none: login_required without a session, a code with one; form_post submits itself with JavaScript; logout ends it', async () => {
    const { context } = await newContext(true);
    try {
      const page = await context.newPage();
      await page.goto(authorizeUrl(server, web({ prompt: 'none' }).params));
      await expect.poll(() => landedOn(page).searchParams.get('error')).toBe('login_required');

      const first = web();
      await page.goto(authorizeUrl(server, first.params));
      await signIn(page);
      await expect.poll(() => landedOn(page).searchParams.has('code')).toBe(true);
      const tokens = await redeem(landedOn(page).searchParams.get('code')!, first.verifier);

      await page.goto(authorizeUrl(server, web({ prompt: 'none' }).params));
      await expect.poll(() => landedOn(page).searchParams.has('code')).toBe(true);

      await page.goto(authorizeUrl(server, web({ prompt: 'none', response_mode: 'form_post' }).params));
      await expect.poll(() => posted.length).toBe(1);
      expect(new URLSearchParams(posted[0]).get('code')).toMatch(/^[\w-]+$/);
      expect(new URLSearchParams(posted[0]).get('iss')).toBe(server.url);

      const logout = new URL(`${server.url}/connect/endsession`);
      logout.search = new URLSearchParams({ id_token_hint: tokens.body.id_token as string, post_logout_redirect_uri: `${siteUrl}/signed-out`, state: 'bye' }).toString();
      await page.goto(logout.href);
      await expect.poll(() => page.url()).toBe(`${siteUrl}/signed-out?state=bye`);
      await page.goto(authorizeUrl(server, web({ prompt: 'none' }).params));
      await expect.poll(() => landedOn(page).searchParams.get('error')).toBe('login_required');
    } finally {
      await context.close();
    }
  });

  it('logout without a hint asks first', async () => {
    const { context } = await newContext(false);
    try {
      const page = await context.newPage();
      await page.goto(authorizeUrl(server, web().params));
      await signIn(page);
      await expect.poll(() => landedOn(page).searchParams.has('code')).toBe(true);
      await page.goto(`${server.url}/connect/endsession`);
      await expect.poll(() => page.locator('h1').textContent()).toBe('Sign out?');
      await shoot(page, '3-sign-out');
      await page.getByRole('button', { name: 'Sign out' }).click();
      await expect.poll(() => page.locator('h1').textContent()).toBe('You are signed out');
    } finally {
      await context.close();
    }
  });

  describe('accessibility', () => {
    /** What the walk clicks and expects, per language (`src/pages/text`). */
    const words = {
      en: {
        signIn: 'Sign in', username: 'Username', password: 'Password', consent: 'Allow access?', approve: 'Approve',
        logout: 'Sign out?', signOut: 'Sign out', signedOut: 'You are signed out', invalidLink: 'This sign-in link is not valid', continue: 'Continue',
      },
      de: {
        signIn: 'Anmelden', username: 'Benutzername', password: 'Passwort', consent: 'Zugriff erlauben?', approve: 'Erlauben',
        logout: 'Abmelden?', signOut: 'Abmelden', signedOut: 'Sie sind abgemeldet', invalidLink: 'Dieser Anmeldelink ist ungültig', continue: 'Weiter',
      },
    } as const;

    /**
     * Every state of the sign-in pages, in one fresh profile. German is chosen with `ui_locales`
     * (OIDC Core §3.1.2.1), which the forms carry on. The form_post page is loaded with scripts
     * off, so it stays put and shows its button (as to a person without JavaScript); they are
     * turned back on before axe is injected.
     */
    async function walk(lang: keyof typeof words): Promise<Record<string, string[]>> {
      const t = words[lang];
      const locales: Record<string, string> = lang === 'en' ? {} : { ui_locales: lang };
      const found: Record<string, string[]> = {};
      const context = await axeContext(browser);
      try {
        const page = await context.newPage();
        const check = async (state: string, heading: string) => {
          await expect.poll(() => page.locator('h1').textContent()).toBe(heading);
          expect(await page.locator('html').getAttribute('lang')).toBe(lang);
          await shoot(page, `a11y-${lang}-${Object.keys(found).length + 1}-${state.replace(/\W+/g, '-')}`);
          found[state] = await axeViolations(page);
        };

        await page.goto(authorizeUrl(server, webRequest({ scope: 'openid api1.read', ...locales }, 'browser-spa', spaRedirect).params));
        await check('sign in', t.signIn);
        await page.getByLabel(t.username).fill(alice.username);
        await page.getByLabel(t.password).fill('wrong-password');
        await page.getByRole('button', { name: t.signIn }).click();
        await expect.poll(() => page.getByRole('alert').count()).toBe(1);
        await check('sign in, with an error notice', t.signIn);
        await page.getByLabel(t.password).fill(alice.password);
        await page.getByRole('button', { name: t.signIn }).click();
        await check('consent', t.consent);
        await page.getByRole('button', { name: t.approve }).click();
        await expect.poll(() => landedOn(page).searchParams.has('code')).toBe(true);

        const cdp = await context.newCDPSession(page);
        await cdp.send('Emulation.setScriptExecutionDisabled', { value: true });
        await page.goto(authorizeUrl(server, web({ response_mode: 'form_post', ...locales }).params));
        await cdp.send('Emulation.setScriptExecutionDisabled', { value: false });
        await check('form_post', t.continue);
        expect(await page.getByRole('button', { name: t.continue }).count()).toBe(1);

        await page.goto(`${server.url}/connect/endsession?${new URLSearchParams(locales)}`);
        await check('logout confirmation', t.logout);
        await page.getByRole('button', { name: t.signOut }).click();
        await check('signed out', t.signedOut);

        await page.goto(authorizeUrl(server, { ...web(locales).params, client_id: 'no-such-client' }));
        await check('error (unknown client)', t.invalidLink);
      } finally {
        await context.close();
      }
      return found;
    }

    it.each(['en', 'de'] as const)('has no serious or critical axe-core violations on any sign-in page (%s)', async (lang) => {
      const found = await walk(lang);
      expect(found).toEqual(Object.fromEntries(Object.keys(found).map((state) => [state, []])));
      expect(Object.keys(found)).toHaveLength(7);
    });

    it('draws the focus ring, input and button borders and the error notice\'s border at 3:1 or more (WCAG 2.2, 1.4.11)', async () => {
      const context = await axeContext(browser);
      try {
        const page = await context.newPage();
        await page.goto(authorizeUrl(server, webRequest({ scope: 'openid api1.read' }, 'browser-spa', spaRedirect).params));
        // Bob here, Alice in the walks: no pair comes near the throttle's threshold.
        await page.getByLabel('Username').fill(bob.username);
        await page.getByLabel('Password').fill('wrong-password');
        await page.getByRole('button', { name: 'Sign in' }).click();
        await expect.poll(() => page.getByRole('alert').count()).toBe(1);
        const card = await computedStyle(page, 'main', 'background-color');
        await expectBorder(page, '#username', card);
        await expectBorder(page, '#password', card);
        await expectBorder(page, '.notice', card);
        for (const target of ['#username', '#password', 'button[type=submit]']) await expectFocusRing(page, target, card);

        // Consent's second button is white on the white card: its border is what shows it is a button.
        await page.getByLabel('Password').fill(bob.password);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await expect.poll(() => page.locator('h1').textContent()).toBe('Allow access?');
        await expectBorder(page, 'button.secondary', card);
        for (const target of ['button[value=approve]', 'button.secondary']) await expectFocusRing(page, target, card);
      } finally {
        await context.close();
      }
    });
  });
});
