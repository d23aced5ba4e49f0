/**
 * Every way an authorization request can fail, as the user and the client see it: before the
 * client and redirect URI are known good, a 400 page and never a redirect (RFC 6749 §4.1.2.1);
 * after, a redirect with error, error_description, state and iss (RFC 9207).
 */
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';
import { realClockWithSkips } from '../support/clocks.js';
import { hashSecret } from '../../src/sdk/hash.js';
import { alice, authorizeUrl, Browser, redeemWeb, signInAndAuthorize, signInClients, signInConfig, spaRedirect, webRedirect, webRequest } from '../support/sign-in.js';

const consentRedirect = 'https://consent.example.com/callback';
const nativeRedirect = 'com.example.app:/oauth2redirect';
let server: TestServer;
// Moved past a second where a test needs a later auth_time, instead of sleeping.
const clock = realClockWithSkips();
beforeAll(async () => {
  server = await startServer(await signInConfig({
    clients: [
      ...signInClients,
      // A confidential web app that asks for consent: a consent it was given is remembered.
      {
        clientId: 'consent-web', clientSecrets: [{ value: hashSecret('consent-secret') }], requireConsent: true,
        allowedGrantTypes: ['authorization_code'], allowedScopes: ['openid', 'profile'], redirectUris: [consentRedirect],
      },
      // Native apps (RFC 8252): public, answered at a custom scheme or a loopback address.
      { clientId: 'native-app', requireClientSecret: false, allowedGrantTypes: ['authorization_code'], allowedScopes: ['openid'], redirectUris: [nativeRedirect] },
      { clientId: 'native-loopback', requireClientSecret: false, allowedGrantTypes: ['authorization_code'], allowedScopes: ['openid'], redirectUris: ['http://127.0.0.1/cb'] },
      { clientId: 'loopback-web', clientSecrets: [{ value: hashSecret('loopback-secret') }], allowedGrantTypes: ['authorization_code'], allowedScopes: ['openid'], redirectUris: ['http://127.0.0.1/cb'] },
    ],
  }), { clock });
});
afterAll(() => server.close());

async function open(params: Record<string, string>, browser = new Browser(server.url)) {
  return browser.get(authorizeUrl(server, params));
}

/** A refusal page without its request id, which differs on every request. */
function sameBut(html: string): string {
  return html.replace(/<code>[\w.:-]+<\/code>/, '<code>…</code>');
}

/** The error redirect's parameters, asserting it went to the registered URI. */
function redirected(page: { status: number; location: URL | undefined }, redirectUri = webRedirect): Record<string, string> {
  expect(page.status).toBe(303);
  expect(page.location!.href.replace(/\?.*$/, '')).toBe(redirectUri);
  return Object.fromEntries(page.location!.searchParams);
}

describe('errors shown on a page, never redirected', () => {
  // One text for an unknown client and an unregistered redirect URI: client ids cannot be enumerated.
  const unknownOrUnregistered = 'The application that sent you here is not known, or the address it wants to send you back to is not registered for it.';
  it.each([
    ['an unknown client', { client_id: 'nobody' }, unknownOrUnregistered],
    ['no client_id', { client_id: undefined }, 'The request names no client.'],
    ['no redirect_uri', { redirect_uri: undefined }, 'The request names no redirect URI.'],
    ['an unregistered redirect_uri (open redirector, RFC 9700 §4.11)', { redirect_uri: 'https://evil.example/callback' }, unknownOrUnregistered],
    ['a redirect_uri differing in case', { redirect_uri: webRedirect.toUpperCase() }, unknownOrUnregistered],
    ['a redirect_uri with an extra query', { redirect_uri: `${webRedirect}?x=1` }, unknownOrUnregistered],
    ['a redirect_uri of another client', { redirect_uri: spaRedirect }, unknownOrUnregistered],
    ['a request_uri that was never pushed (its redirect URI is unknown)', { request_uri: 'urn:ietf:params:oauth:request_uri:nothing' }, 'This sign-in link has expired or was already used. Go back to the application and start again.'],
  ])('%s: 400 page', async (_name, patch, text) => {
    const params: Record<string, string> = { ...webRequest().params };
    for (const [k, v] of Object.entries(patch)) {
      if (v === undefined) delete params[k];
      else params[k] = v;
    }
    const page = await open(params);
    expect(page.status).toBe(400);
    expect(page.location).toBeUndefined();
    expect(page.html).toContain(`<p role="alert">${text}</p>`);
    expect(page.html).not.toContain('evil.example');
  });

  it('an unknown client looks like a known one with a wrong redirect URI; only the log says which (no enumeration of client ids)', async () => {
    const unknown = await open({ ...webRequest().params, client_id: 'nobody' });
    const unregistered = await open({ ...webRequest().params, redirect_uri: 'https://evil.example/callback' });
    expect(unknown.status).toBe(400);
    expect(unregistered.status).toBe(400);
    expect(sameBut(unknown.html)).toBe(sameBut(unregistered.html));
    const { redirect_uri: _dropped, ...withoutRedirect } = webRequest().params;
    const knownBare = await open(withoutRedirect);
    const unknownBare = await open({ ...withoutRedirect, client_id: 'nobody' });
    expect([knownBare.status, unknownBare.status]).toEqual([400, 400]);
    expect(sameBut(unknownBare.html)).toBe(sameBut(knownBare.html));
    const used = 'urn:ietf:params:oauth:request_uri:nothing';
    const knownPushed = await open({ client_id: 'web', request_uri: used });
    const unknownPushed = await open({ client_id: 'nobody', request_uri: used });
    expect(sameBut(unknownPushed.html)).toBe(sameBut(knownPushed.html));
    const details = server.logs.map((l) => l.detail);
    expect(details).toContain('unknown client "nobody"');
    expect(details).toContain('unregistered redirect_uri "https://evil.example/callback" for client "web"');
  });

  it('a refusal page is no dead end: it names the request id the log line carries and links to the start page (issue 39)', async () => {
    const page = await open({ ...webRequest().params, redirect_uri: 'https://evil.example/callback' });
    const requestId = page.headers.get('x-request-id')!;
    expect(requestId).toMatch(/^[\w-]{20,}$/);
    expect(page.html).toContain(`quote this reference: <code>${requestId}</code>`);
    expect(page.html).toContain('<a href="/">Go to the start page of this service</a>');
    const line = server.logs.find((l) => l.reqId === requestId);
    expect(line?.detail).toBe('unregistered redirect_uri "https://evil.example/callback" for client "web"');
    const german = await open({ ...webRequest().params, client_id: 'nobody', ui_locales: 'de' });
    expect(german.html).toContain(`nennen Sie diese Referenz: <code>${german.headers.get('x-request-id')}</code>`);
  });

  it('a parameter sent twice: 400 page (RFC 6749 §3.1)', async () => {
    const { params } = webRequest();
    const page = await new Browser(server.url).get(`${authorizeUrl(server, params)}&state=again`);
    expect(page.status).toBe(400);
    expect(page.location).toBeUndefined();
  });

  it('a native app loopback redirect URI may differ in port only (RFC 8252 §7.3)', async () => {
    const other = await open(webRequest({}, 'spa', 'http://127.0.0.1:51234/spa/callback').params);
    expect(other.status).toBe(200);
    expect(other.html).toContain('<h1>Sign in</h1>');
    const path = await open(webRequest({}, 'spa', 'http://127.0.0.1:51234/spa/other').params);
    expect(path.status).toBe(400);
  });
});

describe('errors redirected to the client with state and iss', () => {
  it.each([
    ['response_type=token (no implicit flow, RFC 9700 §2.1.2)', { response_type: 'token' }, 'unsupported_response_type', 'Only response_type=code is supported.'],
    ['no response_type', { response_type: undefined }, 'invalid_request', 'The response_type parameter is missing.'],
    ['no code_challenge', { code_challenge: undefined, code_challenge_method: undefined }, 'invalid_request', 'A code_challenge (PKCE, S256) is required.'],
    ['code_challenge_method=plain', { code_challenge_method: 'plain' }, 'invalid_request', 'Only code_challenge_method=S256 is supported.'],
    ['no code_challenge_method (plain by default)', { code_challenge_method: undefined }, 'invalid_request', 'Only code_challenge_method=S256 is supported.'],
    ['a malformed code_challenge', { code_challenge: 'short' }, 'invalid_request', 'The code_challenge is malformed.'],
    ['a scope the client may not have', { scope: 'openid api1.write' }, 'invalid_scope', 'The client is not allowed a requested scope.'],
    ['an unsupported prompt', { prompt: 'select_account' }, 'invalid_request', 'The prompt parameter has an unsupported value.'],
    ['prompt=none with login', { prompt: 'none login' }, 'invalid_request', 'prompt=none cannot be combined with other values.'],
    ['a negative max_age', { max_age: '-1' }, 'invalid_request', 'The max_age parameter must be a whole number of seconds.'],
    ['response_mode=fragment', { response_mode: 'fragment' }, 'invalid_request', 'The response_mode is not supported.'],
    // RFC 9101 §6.3: an unsigned object is refused, to the redirect URI beside it (the query's, registered).
    ['an unsigned request object', { request: 'eyJhbGciOiJub25lIn0.e30.' }, 'invalid_request_object', 'The request object must be signed.'],
    ['a nonce over 500 characters', { nonce: 'n'.repeat(501) }, 'invalid_request', 'A parameter is too long.'],
    ['prompt=none without a session', { prompt: 'none' }, 'login_required', 'The user must sign in.'],
  ])('%s', async (_name, patch, error, description) => {
    const params: Record<string, string> = { ...webRequest().params };
    for (const [k, v] of Object.entries(patch)) {
      if (v === undefined) delete params[k];
      else params[k] = v;
    }
    expect(redirected(await open(params))).toEqual({ error, error_description: description, state: params.state, iss: server.url });
  });

  it('a state over 2000 characters is not echoed', async () => {
    const { params } = webRequest({ state: 's'.repeat(2001) });
    expect(redirected(await open(params))).toEqual({ error: 'invalid_request', error_description: 'A parameter is too long.', iss: server.url });
  });

  it('keeps the registered redirect URI\'s own query', async () => {
    const { params } = webRequest({ redirect_uri: 'https://web.example.com/other?tenant=1', response_type: 'token' });
    const page = await open(params);
    expect(page.location!.searchParams.get('tenant')).toBe('1');
    expect(page.location!.searchParams.get('error')).toBe('unsupported_response_type');
  });

  it('deny on the consent page answers access_denied', async () => {
    const { params } = webRequest({}, 'spa', spaRedirect);
    const browser = new Browser(server.url);
    const signIn = await open(params, browser);
    const consent = await browser.submit(signIn, { username: alice.username, password: alice.password });
    const denied = await browser.submit(consent, { decision: 'deny' });
    expect(redirected(denied, spaRedirect)).toEqual({ error: 'access_denied', error_description: 'The user denied the request.', state: params.state, iss: server.url });
  });

  it('prompt=none with a session but no consent answers consent_required; after consent it answers a code', async () => {
    const browser = new Browser(server.url);
    await signInAndAuthorize(server, browser, webRequest().params);
    const none = webRequest({ prompt: 'none' }, 'consent-web', consentRedirect).params;
    expect(redirected(await open(none, browser), consentRedirect)).toMatchObject({ error: 'consent_required', state: none.state, iss: server.url });
    await signInAndAuthorize(server, browser, webRequest({}, 'consent-web', consentRedirect).params);
    const again = webRequest({ prompt: 'none' }, 'consent-web', consentRedirect).params;
    expect(Object.keys(redirected(await open(again, browser), consentRedirect))).toEqual(['code', 'state', 'iss']);
  });

  it('a public client at a loopback redirect URI: a consent given before is not reused, prompt=none stays consent_required (RFC 8252 §8.6)', async () => {
    const browser = new Browser(server.url);
    await signInAndAuthorize(server, browser, webRequest({}, 'spa', spaRedirect).params);
    const again = webRequest({ prompt: 'none' }, 'spa', spaRedirect).params;
    expect(redirected(await open(again, browser), spaRedirect)).toMatchObject({ error: 'consent_required', state: again.state, iss: server.url });
  });

  it.each([
    ['a custom scheme', 'native-app', nativeRedirect],
    ['a loopback address', 'native-loopback', 'http://127.0.0.1:50123/cb'],
  ])('a public client at %s is asked for consent every time, though it does not require consent (RFC 8252 §8.6)', async (_name, clientId, redirectUri) => {
    const browser = new Browser(server.url);
    await signInAndAuthorize(server, browser, webRequest().params);
    const none = webRequest({ prompt: 'none', scope: 'openid' }, clientId, redirectUri).params;
    expect(redirected(await open(none, browser), redirectUri)).toMatchObject({ error: 'consent_required', state: none.state });
    const consent = await open(webRequest({ scope: 'openid' }, clientId, redirectUri).params, browser);
    expect(consent.html).toContain('<h1>Allow access?</h1>');
    expect(consent.html).toContain(`After this page you will be sent to <strong class="redirect-target">${clientId === 'native-app' ? 'com.example.app' : '127.0.0.1:50123'}</strong>.`);
    expect(consent.html).not.toContain('registered itself');
    expect(Object.keys(redirected(await browser.submit(consent, { decision: 'approve' }), redirectUri))).toEqual(['code', 'state', 'iss']);
    // Approved once: still asked the next time.
    expect((await open(webRequest({ scope: 'openid' }, clientId, redirectUri).params, browser)).html).toContain('<h1>Allow access?</h1>');
  });

  it('a confidential client at a loopback redirect URI is answered silently as before', async () => {
    const browser = new Browser(server.url);
    await signInAndAuthorize(server, browser, webRequest().params);
    const none = webRequest({ prompt: 'none', scope: 'openid' }, 'loopback-web', 'http://127.0.0.1:50123/cb').params;
    expect(Object.keys(redirected(await open(none, browser), 'http://127.0.0.1:50123/cb'))).toEqual(['code', 'state', 'iss']);
  });
});

describe('the sign-in page', () => {
  it('says a wrong password plainly, keeps the username, and logs neither the password nor the username', async () => {
    const browser = new Browser(server.url);
    const signIn = await open(webRequest().params, browser);
    const wrong = await browser.submit(signIn, { username: 'alice', password: 'not-her-password-xyz' });
    expect(wrong.status).toBe(200);
    expect(wrong.html).toContain('<p class="notice" role="alert">The username or password is incorrect.</p>');
    expect(wrong.html).toContain('name="username" value="alice"');
    expect(server.logText()).not.toContain('not-her-password-xyz');
    const right = await browser.submit(wrong, { username: alice.username, password: alice.password });
    expect(right.status).toBe(303);
  });

  it('prompt=login and max_age force a new sign-in, which then answers a code whose ID token carries the new auth_time', async () => {
    const browser = new Browser(server.url);
    await signInAndAuthorize(server, browser, webRequest().params);
    const silent = await open(webRequest().params, browser);
    expect(silent.status).toBe(303);
    const login = await open(webRequest({ prompt: 'login' }).params, browser);
    expect(login.status).toBe(200);
    expect(login.html).toContain('<h1>Sign in</h1>');
    clock.advance(1.1);
    const { params, verifier } = webRequest({ max_age: '0' });
    const aged = await open(params, browser);
    expect(aged.html).toContain('<h1>Sign in</h1>');
    const before = Math.floor(Date.now() / 1000);
    const done = await browser.submit(aged, { username: alice.username, password: alice.password });
    expect(done.status).toBe(303);
    const tokens = await redeemWeb(server, done.location!.searchParams.get('code')!, verifier);
    expect(decodeJwt(tokens.body.id_token as string).auth_time).toBeGreaterThanOrEqual(before);
  });

  it('form_post answers with a form to the redirect URI, allowed by the page\'s CSP', async () => {
    const browser = new Browser(server.url);
    await signInAndAuthorize(server, browser, webRequest().params);
    const { params } = webRequest({ response_mode: 'form_post' });
    const page = await open(params, browser);
    expect(page.status).toBe(200);
    expect(page.html).toContain(`<form method="post" action="${webRedirect}">`);
    expect(page.html).toMatch(/<input type="hidden" name="code" value="[\w-]+"><input type="hidden" name="state" value="[0-9a-f]+"><input type="hidden" name="iss" value="http:\/\/127\.0\.0\.1:\d+">/);
    expect(page.headers.get('content-security-policy')).toMatch(/script-src 'sha256-[\w+/=]+'; form-action 'self' https:\/\/web\.example\.com;/);
  });
});
