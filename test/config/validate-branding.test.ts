/**
 * Start-up checks of `pages` (issue 34) and of scope descriptions by language: every problem
 * names its field; colours are plain CSS colours held to the WCAG contrast the built-in look
 * keeps; URLs are https (http only beside an http issuer).
 */
import { describe, expect, it } from 'vitest';
import { validateUserConfig } from '../../src/config/validate.js';
import { resolveConfig } from '../../src/config/resolve.js';
import { contrastRatio, isCssColor } from '../../src/config/validate-branding.js';

const https = { issuer: 'https://id.example.com' };

describe('pages config', () => {
  it('accepts the branding guide\'s example and resolves files against the config folder', () => {
    const pages = {
      productName: 'Acme Cloud', logo: './branding/logo.svg', stylesheet: 'https://cdn.acme.example/id.css', colors: { primary: '#0b5cad', background: '#eef3f8', text: '#102030' },
      privacyPolicyUrl: 'https://acme.example/privacy', termsUrl: 'https://acme.example/terms', templates: { signIn: './branding/sign-in.html' },
    };
    expect(validateUserConfig({ ...https, pages })).toEqual([]);
    const resolved = resolveConfig({ ...https, pages }, '/etc/svc');
    expect(resolved.pages).toEqual({
      productName: 'Acme Cloud', logo: { file: '/etc/svc/branding/logo.svg' }, stylesheet: { url: 'https://cdn.acme.example/id.css' },
      colors: { primary: '#0b5cad', background: '#eef3f8', text: '#102030' },
      privacyPolicyUrl: 'https://acme.example/privacy', termsUrl: 'https://acme.example/terms', templates: { signIn: '/etc/svc/branding/sign-in.html' },
    });
    expect(resolveConfig({}, '/').pages).toEqual({
      productName: undefined, logo: undefined, stylesheet: undefined, colors: { primary: undefined, background: undefined, text: undefined },
      privacyPolicyUrl: undefined, termsUrl: undefined, templates: {},
    });
  });

  it('refuses colours that are no plain CSS colour, so nothing can leave the style sheet', () => {
    for (const ok of ['#fff', '#0b5cadcc', 'rgb(11 92 173)', 'hsl(210, 88%, 36%)', 'oklch(45% 0.15 250)', 'teal']) expect(isCssColor(ok), ok).toBe(true);
    for (const bad of ['red;}body{display:none', 'url(x)', 'rgb(1,2,3))', '#ggg', 'var(--x)', 'expression(alert(1))', '"red"', 'rgb(1 2 3}']) expect(isCssColor(bad), bad).toBe(false);
    expect(validateUserConfig({ ...https, pages: { colors: { primary: 'red;}</style><script>', accent: '#000' } } })).toEqual([
      'pages.colors.primary: expected a CSS colour such as "#1a73e8", "rgb(26 115 232)" or "teal", got "red;}</style><script>"',
      'pages.colors.accent: unknown field (known: primary, background, text)',
    ]);
  });

  it('holds hex colours to WCAG 2.2 contrast: text and buttons 4.5:1 on the white card, the focus ring 3:1 on the background', () => {
    expect(contrastRatio('#000', '#fff')).toBeCloseTo(21, 5);
    expect(contrastRatio('#2357d9', '#ffffff')!.toFixed(2)).toBe('6.11');
    expect(contrastRatio('teal', '#fff')).toBeUndefined();
    expect(validateUserConfig({ ...https, pages: { colors: { primary: '#7fb3ff', text: '#999999', background: '#2357d9' } } })).toEqual([
      'pages.colors.text: text on the white card: contrast 2.85:1, WCAG 2.2 asks for 4.5:1 or more; choose a darker colour',
      'pages.colors.primary: buttons (white text) and links on the white card: contrast 2.14:1, WCAG 2.2 asks for 4.5:1 or more; choose a darker colour',
      'pages.colors.primary: the focus ring against pages.colors.background: contrast 2.85:1, WCAG 2.2 asks for 3:1 or more; choose a different colour',
    ]);
  });

  it('names every other bad field', () => {
    expect(validateUserConfig({
      ...https,
      pages: {
        productName: '', logo: 'javascript:alert(1)', stylesheet: 'http://cdn.example/x.css', privacyPolicyUrl: 'javascript:alert(1)', termsUrl: 42,
        templates: { signin: './x.html', consent: '' }, colour: {},
      },
    })).toEqual([
      'pages.colour: unknown field (did you mean "colors"?) (known: productName, logo, colors, stylesheet, privacyPolicyUrl, termsUrl, templates)',
      'pages.productName: expected a name of 1 to 100 characters, got ""',
      'pages.logo: expected an https:// URL or a file path, got "javascript:alert(1)"',
      'pages.stylesheet: expected an https:// URL, got "http://cdn.example/x.css"',
      'pages.privacyPolicyUrl: expected an https:// URL, got "javascript:alert(1)"',
      'pages.termsUrl: expected an https:// URL, got number 42',
      'pages.templates.signin: unknown template (did you mean "signIn"?) (known: layout, signIn, consent, logout, message, deviceCode, deviceDone)',
      'pages.templates.consent: expected the path of an HTML file, got ""',
    ]);
    expect(validateUserConfig({ pages: { logo: './logo.svg', stylesheet: 'http://localhost:8080/x.css' } })).toEqual([
      'pages.logo: needs pages.productName, the logo\'s text alternative',
    ]);
    expect(validateUserConfig({ pages: 'Acme' })).toEqual([
      'pages: expected an object { productName?, logo?, colors?, stylesheet?, privacyPolicyUrl?, termsUrl?, templates? }, got "Acme"',
    ]);
  });
});

describe('scope descriptions by language', () => {
  it('accepts a string or one per language; the English one is the description plugins read', () => {
    const config = {
      apiScopes: [{ name: 'api1.read', description: { de: 'Ihre Daten lesen', en: 'Read your data' } }, { name: 'api1.write', description: 'Write' }],
      identityResources: [{ name: 'openid', claims: ['sub'] }, { name: 'badge', claims: ['badge'], description: { de: 'Ihr Ausweis' } }],
    };
    expect(validateUserConfig(config)).toEqual([]);
    const resolved = resolveConfig(config, '/');
    expect(resolved.apiScopes).toEqual([
      { name: 'api1.read', description: 'Read your data', descriptions: { de: 'Ihre Daten lesen', en: 'Read your data' } },
      { name: 'api1.write', description: 'Write' },
    ]);
    expect(resolved.identityResources[1]).toMatchObject({ description: 'Ihr Ausweis', descriptions: { de: 'Ihr Ausweis' } });
  });

  it('refuses an empty description, a language that is no tag and a text that is no string', () => {
    expect(validateUserConfig({
      apiScopes: [{ name: 'a', description: '' }, { name: 'b', description: {} }, { name: 'c', description: { 'en us': 'x', de: 3 } }],
      identityResources: [{ name: 'openid', claims: ['sub'], description: ['x'] }],
    })).toEqual([
      'apiScopes[0].description: expected a non-empty description',
      'apiScopes[1].description: expected a string or descriptions by language such as { en: "...", de: "..." }, got an object',
      'apiScopes[2].description.en us: expected a language tag such as "en" or "de-CH" (BCP 47)',
      'apiScopes[2].description.de: expected a non-empty description, got number 3',
      'identityResources[0].description: expected a string or descriptions by language such as { en: "...", de: "..." }, got an array',
    ]);
  });
});
