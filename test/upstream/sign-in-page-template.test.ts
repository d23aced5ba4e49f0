/**
 * Issue 34 with branded pages: a deployment's own `signIn` template has no placeholder for the
 * identity providers' buttons, so a sign-in page that offers providers is the built-in one
 * (still in the deployment's layout and product name); without providers the template is used.
 */
import { describe, expect, it } from 'vitest';
import { resolveBranding } from '../../src/config/branding.js';
import { loadBranding } from '../../src/pages/branding.js';
import { renderSignInPage } from '../../src/pages/sign-in-templates.js';
import { en } from '../../src/pages/text/en.js';
import type { SignInView } from '../../src/pages/sign-in-views.js';

const fixtures = new URL('../fixtures/branding/', import.meta.url).pathname;
const paths = { interaction: '/connect/authorize/sign-in', endSession: '/connect/endsession' };
const branding = loadBranding({ issuer: 'https://id.example.com', pages: resolveBranding({ productName: 'Acme', templates: { signIn: `${fixtures}sign-in.html` } }, fixtures) });
const signIn: SignInView = { kind: 'sign-in', interaction: 'i-1', csrf: 'c-1', clientId: 'web', clientName: 'Web' };

describe('a deployment\'s signIn template and the identity providers', () => {
  it('without providers, the deployment\'s template is the page', () => {
    expect(renderSignInPage(signIn, paths, en, branding)).toContain('<section class="acme-sign-in">');
  });

  it('with providers, the built-in page offers their buttons, in the deployment\'s brand', () => {
    const page = renderSignInPage({ ...signIn, providers: [{ name: 'contoso', displayName: 'Contoso' }], passwordForm: false }, paths, en, branding);
    expect(page).not.toContain('acme-sign-in');
    expect(page).toContain('<button type="submit" class="secondary" name="provider" value="contoso">Sign in with Contoso</button>');
    expect(page).toContain('Acme');
    expect(page).not.toContain('name="password"');
  });
});
