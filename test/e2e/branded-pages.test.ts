/**
 * The pages in a deployment's look, on a real server (issue 34): the product name and logo,
 * the deployment's sign-in template, its style sheet and logo served under the issuer and
 * allowed by the pages' CSP and nothing more, consent in German with descriptions by language
 * and "Not you? Sign out", a missing file stopping start-up; and in Chromium, the style sheet
 * and colours applied with no CSP violation.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser as Chromium } from 'playwright-core';
import { startServer, type TestServer } from '../support/server.js';
import { alice, authorizeUrl, bob, Browser, signInConfig, spaRedirect, webRequest } from '../support/sign-in.js';
import { bootErrorFor } from '../support/boot-error.js';
import { chromiumMissing, launchChromium } from '../support/chromium.js';
import { axeContext, axeViolations } from '../support/accessibility.js';
import type { UserConfig } from '../../src/config/schema.js';

const fixtures = new URL('../fixtures/branding/', import.meta.url).pathname;
const pages: NonNullable<UserConfig['pages']> = {
  productName: 'Acme Cloud',
  logo: './logo.svg',
  stylesheet: './acme.css',
  colors: { primary: '#0b5cad', background: '#eef3f8', text: '#102030' },
  privacyPolicyUrl: 'https://acme.example/privacy',
  termsUrl: 'https://acme.example/terms',
  templates: { signIn: './sign-in.html' },
};

let server: TestServer;
beforeAll(async () => {
  const base = await signInConfig();
  server = await startServer({
    ...base,
    apiScopes: [{ name: 'api1.read', description: { en: 'Read your data in API 1', de: 'Ihre Daten in API 1 lesen' } }],
    identityResources: [{ name: 'openid', claims: ['sub'] }, { name: 'profile', description: { en: 'Your name' }, claims: ['name'] }, { name: 'email', claims: ['email'] }],
    pages,
  }, { configDir: fixtures });
});
afterAll(() => server?.close());

const srcOf = (html: string, pattern: RegExp): string => pattern.exec(html)![1]!;

describe('a branded deployment', () => {
  it('shows its product name, logo and own sign-in template, with the style sheet and logo allowed by exact URL', async () => {
    const browser = new Browser(server.url);
    const page = await browser.get(authorizeUrl(server, webRequest({}, 'spa', spaRedirect).params));
    expect(page.status).toBe(200);
    expect(page.html).toContain('<title>Sign in – Acme Cloud</title>');
    expect(page.html).toContain('<section class="acme-sign-in">');
    expect(page.html).toContain('Call the Acme Cloud help desk.');
    expect(page.html).toContain('<span class="product-name">Acme Cloud</span>');
    expect(page.html).not.toContain('<p class="brand">Sign in</p>');
    expect(page.html).toContain('<footer class="legal"><a href="https://acme.example/privacy">Privacy policy</a><a href="https://acme.example/terms">Terms of use</a></footer>');
    const logo = srcOf(page.html, /<img class="logo" src="([^"]+)"/);
    const sheet = srcOf(page.html, /<link rel="stylesheet" href="([^"]+)">/);
    expect(logo).toMatch(new RegExp(`^${server.url}/assets/logo-[0-9a-f]{12}\\.svg$`));
    expect(page.headers.get('content-security-policy')).toMatch(
      new RegExp(`^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/=]+' ${sheet.replace(/[.]/g, '\\.')}; img-src ${logo.replace(/[.]/g, '\\.')}; form-action 'self' http://127\\.0\\.0\\.1; frame-ancestors 'none'; base-uri 'none'$`),
    );
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('cache-control')).toBe('no-store');
    // The deployment's template posts the same form: the sign-in goes through.
    const consent = await browser.submit(page, { username: alice.username, password: alice.password });
    expect(consent.html).toContain('<h1>Allow access?</h1>');
  });

  it('serves the logo and style sheet it was given, cached for good, an SVG sandboxed; an unknown name is 404', async () => {
    const page = await new Browser(server.url).get(authorizeUrl(server, webRequest().params));
    const logo = await fetch(srcOf(page.html, /<img class="logo" src="([^"]+)"/));
    expect(logo.status).toBe(200);
    expect(logo.headers.get('content-type')).toBe('image/svg+xml');
    expect(logo.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(logo.headers.get('content-security-policy')).toBe("default-src 'none'; style-src 'unsafe-inline'; sandbox");
    expect(logo.headers.get('x-content-type-options')).toBe('nosniff');
    expect(Buffer.from(await logo.arrayBuffer())).toEqual(readFileSync(`${fixtures}logo.svg`));
    const sheet = await fetch(srcOf(page.html, /<link rel="stylesheet" href="([^"]+)">/));
    expect(sheet.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(await sheet.text()).toBe(readFileSync(`${fixtures}acme.css`, 'utf8'));
    expect((await fetch(`${server.url}/assets/logo.svg`)).status).toBe(404);
    expect((await fetch(`${server.url}/assets/..%2Fsvc.config.ts`)).status).toBe(404);
  });

  it('consent in German describes each scope in German, and "Nicht Sie? Abmelden" signs out and asks who is there', async () => {
    const browser = new Browser(server.url);
    const signIn = await browser.get(authorizeUrl(server, webRequest({ ui_locales: 'de', scope: 'openid profile api1.read' }, 'spa', spaRedirect).params));
    const consent = await browser.submit(signIn, { username: alice.username, password: alice.password });
    expect(consent.html).toContain('<title>Zugriff erlauben? – Acme Cloud</title>');
    // The config's English-only description of `profile` gives way to the German words for the standard scope.
    expect(consent.html).toContain('<ul class="scopes"><li>Wissen, wer Sie sind (Ihre Benutzer-ID)<span class="scope-name">openid</span></li><li>Ihr Profil sehen: Name, Benutzername, Bild, Geburtsdatum, Sprache<span class="scope-name">profile</span></li><li>Ihre Daten in API 1 lesen<span class="scope-name">api1.read</span></li></ul>');
    expect(consent.html).toContain('Angemeldet als <strong>alice</strong>. <button type="submit" class="link">Nicht Sie? Abmelden</button>');
    const before = [...browser.cookies.values()].join();
    const again = await browser.submit(consent, {}, 1);
    expect(again.status).toBe(200);
    expect(again.html).toContain('<section class="acme-sign-in">');
    expect(again.html).toContain('<html lang="de">');
    expect([...browser.cookies.values()].join()).not.toBe(before);
    const bobConsent = await browser.submit(again, { username: bob.username, password: bob.password });
    expect(bobConsent.html).toContain('Angemeldet als <strong>bob</strong>.');
    const done = await browser.submit(bobConsent, { decision: 'approve' });
    expect(done.status).toBe(303);
    expect(done.location!.searchParams.get('code')).toBeTruthy();
  });

  it('the device page carries the same look', async () => {
    const page = await new Browser(server.url).get(`${server.url}/device`);
    expect(page.html).toContain('<span class="product-name">Acme Cloud</span>');
    expect(page.html).toContain('<h1>Connect a device</h1>');
    expect(page.headers.get('content-security-policy')).toContain('img-src ');
  });

  it('a logo file that is not there stops start-up naming pages.logo', async () => {
    const err = await bootErrorFor({ issuer: 'http://localhost:1', pages: { productName: 'Acme', logo: './no-logo.svg' } }, fixtures);
    expect(err.code).toBe('CONFIG_INVALID');
    expect(err.message).toBe(`pages.logo: cannot read ${fixtures}no-logo.svg (ENOENT)`);
  });
});

describe.skipIf(chromiumMissing)('in Chromium', () => {
  let chromium: Chromium | undefined;
  beforeAll(async () => {
    chromium = await launchChromium();
  });
  afterAll(async () => {
    await chromium?.close();
  });

  it('applies the deployment\'s style sheet and colours, loads the logo, and breaks no CSP rule', async () => {
    const page = await chromium!.newPage();
    const violations: string[] = [];
    page.on('console', (m) => {
      if (/Content.Security.Policy/i.test(m.text())) violations.push(m.text());
    });
    await page.goto(authorizeUrl(server, webRequest().params));
    // A string: the test's TypeScript has no DOM types; the page computes what it applied.
    const look = await page.evaluate<Record<string, unknown>>(`(() => {
      const main = getComputedStyle(document.querySelector('main'));
      const button = getComputedStyle(document.querySelector('button[type=submit]'));
      const logo = document.querySelector('img.logo');
      return {
        borderTop: main.borderTopWidth + ' ' + main.borderTopStyle + ' ' + main.borderTopColor,
        button: button.backgroundColor,
        body: getComputedStyle(document.body).backgroundColor,
        text: getComputedStyle(document.body).color,
        logoLoaded: logo.complete && logo.naturalWidth > 0,
      };
    })()`);
    expect(look).toEqual({ borderTop: '6px solid rgb(11, 92, 173)', button: 'rgb(11, 92, 173)', body: 'rgb(238, 243, 248)', text: 'rgb(16, 32, 48)', logoLoaded: true });
    expect(violations).toEqual([]);
    await page.close();
  });

  it('keeps the pages accessible: no serious axe-core finding on the branded sign-in and German consent pages', async () => {
    const context = await axeContext(chromium!, { locale: 'de-DE' });
    const page = await context.newPage();
    await page.goto(authorizeUrl(server, webRequest({}, 'spa', spaRedirect).params));
    expect(await axeViolations(page)).toEqual([]);
    await page.fill('#username', alice.username);
    await page.fill('#password', alice.password);
    await page.click('button[type=submit]');
    await page.waitForSelector('text=Zugriff erlauben?');
    expect(await page.getAttribute('html', 'lang')).toBe('de');
    expect(await axeViolations(page)).toEqual([]);
    await context.close();
  });
});
