/** Consent pages describe every standard OpenID scope in every page language, pick the reader's of configured descriptions, and show a bare scope name only when no description exists anywhere. */
import { describe, expect, it } from 'vitest';
import { describeScope } from '../../src/pages/scope-description.js';
import { renderSignInPage } from '../../src/pages/sign-in-templates.js';
import { renderPage } from '../../src/pages/device-templates.js';
import { de } from '../../src/pages/text/de.js';
import { en } from '../../src/pages/text/en.js';

const standard = ['openid', 'profile', 'email', 'address', 'phone', 'offline_access'];

describe('scope descriptions', () => {
  it('every page language describes every standard OpenID scope, each in its own words', () => {
    for (const text of [en, de]) for (const name of standard) expect(describeScope({ name, description: undefined }, text), `${text.lang} ${name}`).toMatch(/\S/);
    for (const name of standard) expect(de.scopes[name]).not.toBe(en.scopes[name]);
  });

  it('picks the reader\'s language, by primary subtag too; else the built-in words of a standard scope; else English, else any', () => {
    const both = { en: 'Read your data', 'de-AT': 'Ihre Daten lesen' };
    expect(describeScope({ name: 'api', description: both }, de)).toBe('Ihre Daten lesen');
    expect(describeScope({ name: 'api', description: both }, en)).toBe('Read your data');
    expect(describeScope({ name: 'email', description: { en: 'Your work e-mail' } }, de)).toBe('Ihre E-Mail-Adresse sehen');
    expect(describeScope({ name: 'api', description: { en: 'Read your data' } }, de)).toBe('Read your data');
    expect(describeScope({ name: 'api', description: { fr: 'Lire vos données' } }, en)).toBe('Lire vos données');
    // One string is the deployment's words for every language, as before.
    expect(describeScope({ name: 'email', description: 'Your work e-mail' }, de)).toBe('Your work e-mail');
    expect(describeScope({ name: 'api', description: undefined }, de)).toBeUndefined();
  });

  it('the German consent pages of both flows: German words, the raw name only in small print beside them', () => {
    const scopes = [{ name: 'openid', description: undefined }, { name: 'address', description: undefined }, { name: 'api1.read', description: { en: 'Read', de: 'Lesen' } }];
    const page = renderSignInPage({ kind: 'consent', interaction: 'i', csrf: 'c', clientId: 'web', clientName: 'Web', username: 'alice', unverified: false, scopes }, { interaction: '/a', endSession: '/e' }, de);
    expect(page).toContain('<ul class="scopes"><li>Wissen, wer Sie sind (Ihre Benutzer-ID)<span class="scope-name">openid</span></li><li>Ihre Postanschrift sehen<span class="scope-name">address</span></li><li>Lesen<span class="scope-name">api1.read</span></li></ul>');
    const device = renderPage({ kind: 'consent', csrf: 'c', userCode: 'BCDF', clientName: 'TV', username: 'alice', scopes }, { action: '/device', numericCodes: false, text: de });
    expect(device).toContain('<li>Lesen<span class="scope-name">api1.read</span></li>');
  });

  it('the sign-in consent page offers "Not you? Sign out", posting the interaction and its CSRF token', () => {
    const page = renderSignInPage({ kind: 'consent', interaction: 'i-9', csrf: 'c-9', clientId: 'web', clientName: 'Web', username: 'alice', unverified: false, scopes: [] }, { interaction: '/connect/authorize/sign-in', endSession: '/e' }, en);
    expect(page).toContain('<form method="post" action="/connect/authorize/sign-in">\n<input type="hidden" name="step" value="sign-out"><input type="hidden" name="interaction" value="i-9"><input type="hidden" name="csrf" value="c-9">\n<p class="muted">Signed in as <strong>alice</strong>. <button type="submit" class="link">Not you? Sign out</button></p>\n</form>');
  });
});
