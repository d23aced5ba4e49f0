/**
 * The pages in the deployment's look (`pages` in the config): the product name and logo in
 * place of the small "Sign in" line, colours and style sheet within the CSP, legal links in
 * the reader's language, each template replaceable on its own with values escaped, and a file
 * that is missing or a template that does not parse stopping start-up naming its field.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveBranding, type PagesConfig } from '../../src/config/branding.js';
import { BootError } from '../../src/config/boot-error.js';
import { loadBranding } from '../../src/pages/branding.js';
import { pageHeaders } from '../../src/pages/page-headers.js';
import { renderSignInPage } from '../../src/pages/sign-in-templates.js';
import { renderPage } from '../../src/pages/device-templates.js';
import { de } from '../../src/pages/text/de.js';
import { en } from '../../src/pages/text/en.js';
import type { SignInView } from '../../src/pages/sign-in-views.js';
import type { PageView } from '../../src/pages/device-views.js';

const fixtures = new URL('../fixtures/branding/', import.meta.url).pathname;
const issuer = 'https://id.example.com/tenant';
const paths = { interaction: '/tenant/connect/authorize/sign-in', endSession: '/tenant/connect/endsession' };
const brandingOf = (pages: PagesConfig, dir = fixtures) => loadBranding({ issuer, pages: resolveBranding(pages, dir) });
const evil = '<script>alert(1)</script>';
const escaped = '&lt;script&gt;alert(1)&lt;/script&gt;';

const consent: SignInView = {
  kind: 'consent', interaction: 'i-1', csrf: 'c-1', clientId: 'web', clientName: evil, username: 'alice', unverified: false,
  scopes: [{ name: 'openid', description: undefined }, { name: 'api1.read', description: { en: 'Read your data', de: 'Ihre Daten lesen' } }],
};
const signIn: SignInView = { kind: 'sign-in', interaction: 'i-1', csrf: 'c-1', clientId: 'web', clientName: evil, username: evil, notice: 'credentials-wrong' };

describe('the product name, logo, colours, style sheet and legal links', () => {
  const branding = brandingOf({
    productName: 'Acme Cloud', logo: './logo.svg', stylesheet: './acme.css', colors: { primary: '#0b5cad', background: '#eef3f8', text: '#102030' },
    privacyPolicyUrl: 'https://acme.example/privacy', termsUrl: 'https://acme.example/terms',
  });

  it('replaces the small "Sign in" line on every page, Allow access? included, and names the product in the title', () => {
    const page = renderSignInPage(consent, paths, de, branding);
    expect(page).toMatch(/<p class="brand product"><img class="logo" src="https:\/\/id\.example\.com\/tenant\/assets\/logo-[0-9a-f]{12}\.svg" alt=""><span class="product-name">Acme Cloud<\/span><\/p>/);
    expect(page).not.toContain('<p class="brand">Anmeldung</p>');
    expect(page).toContain('<title>Zugriff erlauben? – Acme Cloud</title>');
    const device = renderPage({ kind: 'enter-code', csrf: 'c', userCode: '' }, { action: '/tenant/device', numericCodes: false, text: en, branding });
    expect(device).toContain('<span class="product-name">Acme Cloud</span>');
    expect(device).not.toContain('Device sign-in');
  });

  it('links the privacy policy and terms in the footer, in the reader\'s language', () => {
    expect(renderSignInPage(signIn, paths, de, branding)).toContain('<footer class="legal"><a href="https://acme.example/privacy">Datenschutz</a><a href="https://acme.example/terms">Nutzungsbedingungen</a></footer>\n</main>');
    expect(renderSignInPage(signIn, paths, en, branding)).toContain('<a href="https://acme.example/privacy">Privacy policy</a><a href="https://acme.example/terms">Terms of use</a>');
  });

  it('writes the colours into the inline style sheet, which the CSP allows by its hash, and allows the style sheet and logo by their exact URLs', () => {
    const page = renderSignInPage(signIn, paths, en, branding);
    expect(branding.css).toContain(':root{--accent:#0b5cad;--focus:#0b5cad;--accent-dark:color-mix(in srgb,#0b5cad 82%,#000);--bg:#eef3f8;--text:#102030}');
    expect(page).toContain(`<style>${branding.css}</style>`);
    expect(page).toContain(`<link rel="stylesheet" href="${branding.stylesheetHref}">`);
    const csp = pageHeaders({ branding })['Content-Security-Policy'];
    expect(csp).toBe(
      `default-src 'none'; style-src ${branding.cssHash} ${branding.stylesheetHref}; img-src ${branding.logoSrc}; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
    );
    expect(branding.cssHash).not.toBe(brandingOf({}).cssHash);
    expect([...branding.assets.keys()].sort()).toEqual([new URL(branding.logoSrc!).pathname.slice('/tenant'.length), new URL(branding.stylesheetHref!).pathname.slice('/tenant'.length)].sort());
  });

  it('allows a style sheet and logo at another host by exactly that file, never its whole origin', () => {
    const remote = brandingOf({ productName: 'Acme', logo: 'https://cdn.acme.example/img/logo.png?v=3', stylesheet: 'https://cdn.acme.example/css/id;x.css' });
    expect(pageHeaders({ branding: remote })['Content-Security-Policy']).toContain(
      `style-src ${remote.cssHash} https://cdn.acme.example/css/id%3Bx.css; img-src https://cdn.acme.example/img/logo.png;`,
    );
    expect(remote.assets.size).toBe(0);
  });

  it('without pages config, the pages look as before', () => {
    const page = renderSignInPage(signIn, paths, en, brandingOf({}));
    expect(page).toContain('<p class="brand">Sign in</p>');
    expect(page).not.toContain('<footer');
    expect(page).not.toContain('<link');
    expect(pageHeaders({ branding: brandingOf({}) })).toEqual(pageHeaders());
  });
});

describe('templates a deployment replaces one at a time', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-templates-'));
  const write = (name: string, body: string): string => {
    writeFileSync(join(dir, name), body);
    return `./${name}`;
  };
  const branding = brandingOf({
    productName: 'Acme',
    templates: {
      signIn: `${fixtures}sign-in.html`,
      consent: write('consent.html', '<h1 id="acme-consent">{{title}}</h1><ul>{{#scopes}}<li>{{description}}</li>{{/scopes}}</ul><p>{{clientName}} {{{intro}}}</p><form method="post" action="{{action}}">{{{hiddenFields}}}</form><form method="post" action="{{action}}">{{{signOutHiddenFields}}}<button>{{signOutLabel}}</button></form>'),
      logout: write('logout.html', '<h1 id="acme-logout">{{question}}</h1><form method="post" action="{{action}}">{{{hiddenFields}}}</form>'),
      message: write('message.html', '<h1 id="acme-message">{{title}}</h1><p>{{text}}</p>{{#startAgainUrl}}<a href="{{startAgainUrl}}">{{startAgainLabel}}</a>{{/startAgainUrl}}'),
      deviceCode: write('device-code.html', '<h1 id="acme-code">{{title}}</h1><form method="post" action="{{action}}">{{{hiddenFields}}}<input name="user_code" value="{{userCode}}"{{#numeric}} inputmode="numeric"{{/numeric}}></form>'),
      deviceDone: write('device-done.html', '<h1 id="acme-done">{{title}}</h1><p>{{{text}}}</p>'),
      layout: write('layout.html', '<!doctype html><html lang="{{lang}}"><head><title>{{title}}</title>{{{head}}}</head><body class="acme"><header>{{productName}}</header><main>{{{body}}}</main>{{{footer}}}</body></html>'),
    },
  }, dir);
  const device = (view: PageView, text = en) => renderPage(view, { action: '/tenant/device', numericCodes: true, text, branding });

  it('sign-in (both flows): the deployment\'s markup, every value escaped', () => {
    const page = renderSignInPage(signIn, paths, en, branding);
    expect(page).toContain('<section class="acme-sign-in">');
    expect(page).toContain(`<p>Sign in to continue to <strong>${escaped}</strong>.</p>`);
    expect(page).toContain(`value="${escaped}"`);
    expect(page).toContain('<p class="notice" role="alert">The username or password is incorrect.</p>');
    expect(page).toContain('<input type="hidden" name="step" value="sign-in"><input type="hidden" name="interaction" value="i-1"><input type="hidden" name="csrf" value="c-1">');
    expect(page).toContain('Call the Acme help desk.');
    expect(page).not.toContain('<script>');
    const onDevice = device({ kind: 'sign-in', csrf: 'c', userCode: 'BCDF-GHJK', clientName: evil });
    expect(onDevice).toContain('<section class="acme-sign-in">');
    expect(onDevice).toContain('<p class="muted">Code: <span class="code">BCDF-GHJK</span></p>');
    expect(onDevice).toContain('<input type="hidden" name="user_code" value="BCDF-GHJK">');
  });

  it('consent, logout, message, the device code and done steps, and the layout around them all', () => {
    const c = renderSignInPage(consent, paths, de, branding);
    expect(c).toContain('<h1 id="acme-consent">Zugriff erlauben?</h1><ul><li>Wissen, wer Sie sind (Ihre Benutzer-ID)</li><li>Ihre Daten lesen</li></ul>');
    expect(c).toContain(`<p>${escaped} <strong>${escaped}</strong> bittet um Zugriff auf Ihr Konto.</p>`);
    expect(c).toContain('<input type="hidden" name="step" value="sign-out"><input type="hidden" name="interaction" value="i-1"><input type="hidden" name="csrf" value="c-1"><button>Nicht Sie? Abmelden</button>');
    expect(renderSignInPage({ kind: 'logout', csrf: 'c', fields: [['state', evil]] }, paths, en, branding))
      .toContain(`<h1 id="acme-logout">Do you want to sign out of this service?</h1><form method="post" action="/tenant/connect/endsession"><input type="hidden" name="csrf" value="c"><input type="hidden" name="state" value="${escaped}"></form>`);
    expect(renderSignInPage({ kind: 'message', message: 'signed-out' }, paths, en, branding)).toContain('<h1 id="acme-message">You are signed out</h1><p>You can close this page.</p></main>');
    expect(device({ kind: 'message', message: 'form-expired' })).toContain('<a href="/tenant/device">Start again</a>');
    expect(device({ kind: 'enter-code', csrf: 'c', userCode: evil })).toContain(`<h1 id="acme-code">Connect a device</h1><form method="post" action="/tenant/device"><input type="hidden" name="step" value="code"><input type="hidden" name="csrf" value="c"><input name="user_code" value="${escaped}" inputmode="numeric"></form>`);
    expect(device({ kind: 'done', approved: true, clientName: evil }, de)).toContain(`<h1 id="acme-done">Gerät verbunden</h1><p><strong>${escaped}</strong> kann jetzt Ihr Konto verwenden.`);
    const page = device({ kind: 'done', approved: false, clientName: 'TV' });
    expect(page).toMatch(/^<!doctype html><html lang="en"><head><title>Request denied – Acme<\/title><style>[^<]+<\/style>\n<\/head><body class="acme"><header>Acme<\/header><main><h1 id="acme-done">/);
  });

  it('a page whose template is not replaced keeps the built-in one inside the deployment\'s layout', () => {
    const only = brandingOf({ templates: { deviceDone: write('only-done.html', '<h1>{{title}}</h1>') } }, dir);
    expect(renderSignInPage(signIn, paths, en, only)).toContain('<label for="username">Username</label>');
    expect(renderPage({ kind: 'done', approved: true, clientName: 'TV' }, { action: '/device', numericCodes: false, text: en, branding: only })).toContain('<main>\n<p class="brand">Device sign-in</p>\n<h1>Device connected</h1>\n</main>');
  });
});

describe('what stops start-up', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-branding-'));
  writeFileSync(join(dir, 'bad.html'), '<p>{{#startAgainUrl}}</p>');
  writeFileSync(join(dir, 'typo.html'), '<p>{{clientNme}}</p>');
  writeFileSync(join(dir, 'logo.bmp'), 'BM');
  writeFileSync(join(dir, 'no-form.html'), '<form method="post" action="{{action}}"><button>{{submitLabel}}</button></form>');
  writeFileSync(join(dir, 'no-lang.html'), '<html><body>{{{body}}}</body></html>');

  it('stops at a form template without the hidden fields and a layout without the page\'s language', () => {
    expect(() => brandingOf({ templates: { signIn: './no-form.html', layout: './no-lang.html' } }, dir)).toThrow(new BootError('CONFIG_INVALID', [
      `pages.templates.signIn: ${join(dir, 'no-form.html')}: must use {{{hiddenFields}}}`,
      `pages.templates.layout: ${join(dir, 'no-lang.html')}: must use {{lang}}`,
    ]));
  });

  it('names the field of a missing file, a file of the wrong kind and a template that does not parse', () => {
    let err: unknown;
    try {
      brandingOf({ productName: 'Acme', logo: './logo.bmp', stylesheet: './missing.css', templates: { signIn: './typo.html', message: './bad.html', consent: './nope.html' } }, dir);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(BootError);
    expect((err as BootError).code).toBe('CONFIG_INVALID');
    expect((err as BootError).problems).toEqual([
      'pages.logo: logo.bmp is not one of .svg, .png, .jpg, .jpeg, .gif, .webp, .avif, .ico',
      `pages.stylesheet: cannot read ${join(dir, 'missing.css')} (ENOENT)`,
      `pages.templates.signIn: ${join(dir, 'typo.html')}: line 1: unknown placeholder "clientNme" (did you mean "clientName"?) (this page offers: lang, productName, title, intro, notice, action, hiddenFields, username, usernameLabel, passwordLabel, submitLabel, clientName, userCode, codeLabel, forgotPasswordUrl, forgotPasswordLabel)`,
      `pages.templates.message: ${join(dir, 'bad.html')}: line 1: {{#startAgainUrl}} is never closed`,
      `pages.templates.consent: ${join(dir, 'nope.html')}: cannot read it (ENOENT)`,
    ]);
  });
});
