/**
 * What the authorization endpoint makes of `id_token_hint` and `max_age=0` (OIDC Core
 * §3.1.2.1): a hint naming another user than the session's asks for a sign-in
 * (`login_required` with `prompt=none`); a hint that is no ID token of ours for this client is
 * `invalid_request`; `max_age=0` is `prompt=login`, even in the second of the last sign-in
 * (the clock here never moves).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';
import { hashSecret } from '../../src/sdk/hash.js';
import { alice, authorizeUrl, bob, Browser, redeemWeb, signInAndAuthorize, signInClients, signInConfig, webRedirect, webRequest } from '../support/sign-in.js';
import { manualClock } from '../fixtures/grant-plugins/world.js';

const otherRedirect = 'https://other.example.com/callback';
let server: TestServer;
let aliceIdToken: string;

beforeAll(async () => {
  server = await startServer(await signInConfig({
    clients: [
      ...signInClients,
      { clientId: 'other-web', clientSecrets: [{ value: hashSecret('other-secret') }], allowedGrantTypes: ['authorization_code'], allowedScopes: ['openid'], redirectUris: [otherRedirect] },
    ],
  }), { clock: manualClock(Date.now()) });
  const { params, verifier } = webRequest();
  const location = await signInAndAuthorize(server, new Browser(server.url), params);
  aliceIdToken = (await redeemWeb(server, location.searchParams.get('code')!, verifier)).body.id_token as string;
});
afterAll(() => server?.close());

const open = (browser: Browser, params: Record<string, string>) => browser.get(authorizeUrl(server, params));

async function signedIn(user: { username: string; password: string }): Promise<Browser> {
  const browser = new Browser(server.url);
  await signInAndAuthorize(server, browser, webRequest().params, user);
  return browser;
}

function redirectedTo(page: { status: number; location: URL | undefined }, redirectUri = webRedirect): Record<string, string> {
  expect(page.status).toBe(303);
  expect(page.location!.origin + page.location!.pathname).toBe(redirectUri);
  return Object.fromEntries(page.location!.searchParams);
}

describe('id_token_hint at the authorization endpoint', () => {
  it('alice\'s hint with prompt=none in bob\'s browser: login_required, no code', async () => {
    const browser = await signedIn(bob);
    const { params } = webRequest({ prompt: 'none', id_token_hint: aliceIdToken });
    expect(redirectedTo(await open(browser, params))).toEqual({ error: 'login_required', error_description: 'The user must sign in.', state: params.state, iss: server.url });
  });

  it('alice\'s hint in bob\'s browser without prompt=none: the sign-in page, and whoever signs in there gets the code', async () => {
    const browser = await signedIn(bob);
    const page = await open(browser, webRequest({ id_token_hint: aliceIdToken }).params);
    expect(page.status).toBe(200);
    expect(page.html).toContain('<h1>Sign in</h1>');
    const done = await browser.submit(page, { username: alice.username, password: alice.password });
    expect(Object.keys(redirectedTo(done))).toEqual(['code', 'state', 'iss']);
  });

  it('alice\'s hint with prompt=none in alice\'s browser: a code', async () => {
    const browser = await signedIn(alice);
    const { params } = webRequest({ prompt: 'none', id_token_hint: aliceIdToken });
    expect(Object.keys(redirectedTo(await open(browser, params)))).toEqual(['code', 'state', 'iss']);
  });

  it.each([
    ['not a JWT', () => 'not-a-token'],
    ['a forged signature', () => `${aliceIdToken.slice(0, aliceIdToken.lastIndexOf('.'))}.AAAA`],
  ])('a hint that is %s: invalid_request at the redirect URI', async (_name, hintOf) => {
    const hint = hintOf();
    const browser = await signedIn(alice);
    const { params } = webRequest({ prompt: 'none', id_token_hint: hint });
    expect(redirectedTo(await open(browser, params))).toEqual({ error: 'invalid_request', error_description: 'The id_token_hint is not valid.', state: params.state, iss: server.url });
    expect(server.logText()).not.toContain(hint);
  });

  it('a hint issued to another client: invalid_request', async () => {
    const browser = await signedIn(alice);
    const { params } = webRequest({ scope: 'openid', prompt: 'none', id_token_hint: aliceIdToken }, 'other-web', otherRedirect);
    expect(redirectedTo(await open(browser, params), otherRedirect)).toMatchObject({ error: 'invalid_request', error_description: 'The id_token_hint is not valid.' });
  });
});

describe('max_age=0', () => {
  it('forces a new sign-in in the same second as the last one (prompt=login)', async () => {
    const browser = await signedIn(alice);
    const page = await open(browser, webRequest({ max_age: '0' }).params);
    expect(page.status).toBe(200);
    expect(page.html).toContain('<h1>Sign in</h1>');
    const done = await browser.submit(page, { username: alice.username, password: alice.password });
    expect(Object.keys(redirectedTo(done))).toEqual(['code', 'state', 'iss']);
  });

  it('with prompt=none: login_required', async () => {
    const browser = await signedIn(alice);
    const { params } = webRequest({ max_age: '0', prompt: 'none' });
    expect(redirectedTo(await open(browser, params))).toMatchObject({ error: 'login_required', state: params.state });
  });
});
