/**
 * Passkeys (issue 35) in Chromium with a virtual authenticator (the DevTools protocol's WebAuthn
 * domain through playwright-core): a user adds a passkey on the account page, signs out, signs
 * in with the password and the passkey, then with the passkey alone; a second profile without
 * the credential cannot. The issuer is `http://localhost:<port>`: WebAuthn needs a domain as the
 * relying party id and a secure context, which localhost is. The sign-in page also asks for the
 * passkey through the username field's autofill (conditional mediation). The passkey is renamed
 * and removed on the account page. axe checks the pages with passkeys.
 */
import { decodeJwt } from 'jose';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret } from '../../src/sdk/hash.js';
import { axeContext, axeViolations } from '../support/accessibility.js';
import { startPasskeyBrowser, type AuthenticatorPage, type PasskeyBrowser } from '../support/browser-sign-in.js';
import { chromiumMissing, chromiumPath } from '../support/chromium.js';
import { postForm, type TestServer } from '../support/server.js';
import { alice, webRequest } from '../support/sign-in.js';

if (chromiumMissing) console.warn(`Skipping the passkeys browser test: ${chromiumPath} is missing (apt-get install -y chromium).`);

const deviceGrant = 'urn:ietf:params:oauth:grant-type:device_code';
const nora = { subjectId: 'sub-nora', username: 'nora', password: 'nora-password-1' };

describe.skipIf(chromiumMissing)('passkeys in Chromium', () => {
  let server: TestServer;
  let issuer: string;
  let browser: Browser;
  let passkeyBrowser: PasskeyBrowser;
  let callback: string;
  let context: BrowserContext;
  let page: Page;
  let presence: AuthenticatorPage['presence'];

  beforeAll(async () => {
    passkeyBrowser = await startPasskeyBrowser({
      clients: (redirectUri) => [
        { clientId: 'tv', clientName: 'Living room TV', requireClientSecret: false, allowedGrantTypes: [deviceGrant], allowedScopes: ['openid', 'profile'] },
        { clientId: 'keyed', clientName: 'Keyed app', clientSecrets: [{ value: hashSecret('keyed-secret') }], allowedGrantTypes: ['authorization_code'], allowedScopes: ['openid', 'profile'], redirectUris: [redirectUri] },
      ],
      user: { ...nora, claims: { name: 'Nora' } },
    });
    ({ server, issuer, callback, browser, context, page, presence } = passkeyBrowser);
    await page.setViewportSize({ width: 375, height: 800 });
  });
  afterAll(async () => {
    await passkeyBrowser?.close();
  });

  const authorize = (flow = webRequest({ scope: 'openid profile' }, 'keyed', callback)) => `${issuer}/connect/authorize?${new URLSearchParams(flow.params)}`;

  async function tokensFrom(p: Page, verifier: string): Promise<Record<string, unknown>> {
    await expect.poll(() => p.url().startsWith(callback)).toBe(true);
    const code = new URL(p.url()).searchParams.get('code')!;
    const res = await postForm(`${server.url}/connect/token`, { grant_type: 'authorization_code', code, redirect_uri: callback, code_verifier: verifier }, {
      authorization: `Basic ${Buffer.from('keyed:keyed-secret').toString('base64')}`,
    });
    expect(res.status).toBe(200);
    return decodeJwt((res.body as { id_token: string }).id_token);
  }

  async function checked(p: Page, heading: string): Promise<void> {
    await expect.poll(() => p.locator('h1').textContent()).toBe(heading);
    expect(await axeViolations(p)).toEqual([]);
    expect(await p.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
  }

  it('adds a passkey on the account page, then signs in with the password and the passkey', async () => {
    const first = webRequest({ scope: 'openid profile' }, 'keyed', callback);
    await page.goto(authorize(first));
    await checked(page, 'Sign in');
    await page.getByLabel('Username').fill(nora.username);
    await page.getByLabel('Password').fill(nora.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    expect(await tokensFrom(page, first.verifier)).toMatchObject({ amr: ['pwd'], acr: 'pwd' });

    await page.goto(`${issuer}/account/second-factor`);
    await checked(page, 'Second factor');
    await page.getByLabel('Name for a new passkey').fill('Test laptop');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Passkey added.');
    expect(await page.locator('ul.scopes li').allTextContents()).toEqual([expect.stringContaining('Test laptop')]);
    await checked(page, 'Second factor');
    expect((await server.app.store.factors.get(nora.subjectId)).passkeys).toMatchObject([{ name: 'Test laptop' }]);

    await context.clearCookies();
    // Nobody picks the passkey the username field offers (conditional UI, the next test): the password then.
    await presence(false);
    const second = webRequest({ scope: 'openid profile' }, 'keyed', callback);
    await page.goto(authorize(second));
    await page.getByLabel('Username').fill(nora.username);
    await page.getByLabel('Password').fill(nora.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await checked(page, 'Enter your one-time code');
    await presence(true);
    await page.getByRole('button', { name: 'Use a passkey' }).click();
    const claims = await tokensFrom(page, second.verifier);
    expect(claims).toMatchObject({ sub: nora.subjectId, acr: 'mfa' });
    expect(claims.amr).toEqual(expect.arrayContaining(['pwd', 'mfa']));
  });

  it('offers the passkey in the username field (conditional UI): choosing it signs in without a password or a button', async () => {
    await context.clearCookies();
    // What the page asks the browser for, seen from inside it.
    const mediations: string[] = [];
    page.on('console', (message) => { if (message.text().startsWith('mediation:')) mediations.push(message.text()); });
    await page.addInitScript(`{
      const get = navigator.credentials.get.bind(navigator.credentials);
      navigator.credentials.get = (options) => { console.log('mediation:' + (options && options.mediation || 'none')); return get(options); };
    }`);
    // Until the person picks the passkey the field offers, the page waits, as a password form.
    await presence(false);
    const flow = webRequest({ scope: 'openid profile' }, 'keyed', callback);
    await page.goto(authorize(flow));
    await checked(page, 'Sign in');
    expect(await page.getByLabel('Username').getAttribute('autocomplete')).toBe('username webauthn');
    await expect.poll(() => mediations).toEqual(['mediation:conditional']);
    expect(page.url()).toContain('/connect/authorize');
    // The virtual authenticator picks it at once (presence), as a person choosing it from the field's suggestions.
    await presence(true);
    await page.reload();
    const claims = await tokensFrom(page, flow.verifier);
    expect(claims).toMatchObject({ sub: nora.subjectId, acr: 'mfa' });
    expect(claims.amr).toEqual(expect.arrayContaining(['user', 'mfa']));
    expect(claims.amr).not.toContain('pwd');
    expect(mediations).toEqual(['mediation:conditional', 'mediation:conditional']);
  });

  it('signs in with the passkey alone by its button (a browser without conditional UI); a second profile without the credential cannot', async () => {
    await context.clearCookies();
    // A browser without conditional UI: the button is the way.
    await page.addInitScript('PublicKeyCredential.isConditionalMediationAvailable = () => Promise.resolve(false);');
    const flow = webRequest({ scope: 'openid profile' }, 'keyed', callback);
    await page.goto(authorize(flow));
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    const claims = await tokensFrom(page, flow.verifier);
    expect(claims).toMatchObject({ sub: nora.subjectId, acr: 'mfa' });
    expect(claims.amr).toEqual(expect.arrayContaining(['user', 'mfa']));
    expect(claims.amr).not.toContain('pwd');

    const other = await axeContext(browser);
    try {
      const stranger = await other.newPage();
      const cdp = await other.newCDPSession(stranger);
      await cdp.send('WebAuthn.enable');
      await cdp.send('WebAuthn.addVirtualAuthenticator', {
        options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
      });
      await stranger.goto(authorize());
      await stranger.getByRole('button', { name: 'Sign in with a passkey' }).click();
      await expect.poll(() => stranger.locator('.passkey-failed').isVisible()).toBe(true);
      expect(stranger.url()).toContain('/connect/authorize');
    } finally {
      await other.close();
    }
  });

  it('the device page: a user whose only factor is a passkey is told to use it after the password, and signs in with it', async () => {
    await context.clearCookies();
    // This page has no conditional UI since the test before, so the passkey waits for its button.
    const codes = await postForm(`${server.url}/connect/deviceauthorization`, { client_id: 'tv', scope: 'openid profile' });
    const { device_code: deviceCode, verification_uri_complete: complete } = codes.body as { device_code: string; verification_uri_complete: string };
    await page.goto(complete.replace(server.url, issuer));
    await page.getByRole('button', { name: 'Continue' }).click();
    await checked(page, 'Sign in');
    expect(await page.getByLabel('Username').getAttribute('autocomplete')).toBe('username webauthn');
    await page.getByLabel('Username').fill(nora.username);
    await page.getByLabel('Password').fill(nora.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await checked(page, 'Sign in');
    expect(await page.locator('.notice').first().textContent()).toBe('Your account signs in with a passkey: use "Sign in with a passkey" below, on a device that has it.');
    expect(await page.getByLabel('One-time code or recovery code').count()).toBe(0);

    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await checked(page, 'Allow access?');
    await page.getByRole('button', { name: 'Approve' }).click();
    await checked(page, 'Device connected');
    const tokens = await postForm(`${server.url}/connect/token`, { grant_type: deviceGrant, device_code: deviceCode, client_id: 'tv' });
    expect(tokens.status).toBe(200);
    const claims = decodeJwt((tokens.body as { id_token: string }).id_token);
    expect(claims).toMatchObject({ sub: nora.subjectId, acr: 'mfa' });
    expect(claims.amr).toEqual(expect.arrayContaining(['user', 'mfa']));
  });

  it('without JavaScript the sign-in pages say passkeys need it, and the password works as before', async () => {
    const plain = await browser.newContext({ javaScriptEnabled: false });
    try {
      const p = await plain.newPage();
      const flow = webRequest({ scope: 'openid profile' }, 'keyed', callback);
      await p.goto(authorize(flow));
      await expect.poll(() => p.locator('h1').textContent()).toBe('Sign in');
      expect(await p.locator('main').textContent()).toContain('Passkeys need JavaScript, which is off in this browser.');
      await p.getByLabel('Username').fill(alice.username);
      await p.getByLabel('Password').fill(alice.password);
      await p.getByRole('button', { name: 'Sign in', exact: true }).click();
      expect(await tokensFrom(p, flow.verifier)).toMatchObject({ sub: alice.subjectId, amr: ['pwd'] });
    } finally {
      await plain.close();
    }
  });

  it('renames the passkey and removes it on the account page, in a session the passkey signed in', async () => {
    await page.goto(`${issuer}/account/second-factor`);
    await checked(page, 'Second factor');
    await page.getByLabel('New name for "Test laptop"').fill('  Work laptop  ');
    await page.getByRole('button', { name: 'Rename "Test laptop"' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Passkey renamed.');
    await checked(page, 'Second factor');
    expect(await page.locator('.passkey-name').allTextContents()).toEqual(['Work laptop']);
    expect((await server.app.store.factors.get(nora.subjectId)).passkeys).toMatchObject([{ name: 'Work laptop' }]);

    await page.getByRole('button', { name: 'Remove the passkey "Work laptop"' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Passkey removed.');
    await checked(page, 'Second factor');
    expect(await page.locator('.passkey-name').count()).toBe(0);
    expect((await server.app.store.factors.get(nora.subjectId)).passkeys).toEqual([]);
  });
});
