/**
 * Self-registered clients (RFC 7591) at the authorization endpoint: their metadata is
 * self-asserted (§5), so the user always consents (a consent given to that client before is
 * reused, but never for offline_access, OIDC Core §11); the consent page says nobody verified
 * the client and where the browser goes next. And a client deleted (RFC 7592) while its sign-in
 * or consent page is open ends the interaction with the unknown-client page, never a 500.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRegistrationTokens } from '../../src/clients/registration/registration-tokens.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import { basic, postForm, startServer, type TestServer } from '../support/server.js';
import { alice, authorizeUrl, Browser, signInAndAuthorize, signInConfig, webRequest, type Page } from '../support/sign-in.js';

const rpRedirect = 'https://rp.example.net/cb';
const unknownClientText = 'The application that sent you here is not known, or the address it wants to send you back to is not registered for it.';
let server: TestServer;
let initial: string;

beforeAll(async () => {
  const store = createMemoryStore();
  server = await startServer(await signInConfig({
    registration: { enabled: true, allowedGrantTypes: ['authorization_code', 'refresh_token'], allowedScopes: ['openid', 'profile', 'offline_access'] },
  }), { store });
  initial = (await createRegistrationTokens({ store, clock: { now: () => Date.now() } }).issueInitial(3600, 1000)).token;
});
afterAll(() => server?.close());

interface Registered { id: string; secret: string; registrationToken: string }

async function register(): Promise<Registered> {
  const res = await fetch(`${server.url}/connect/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${initial}` },
    body: JSON.stringify({ client_name: 'Your Bank', redirect_uris: [rpRedirect], grant_types: ['authorization_code', 'refresh_token'], scope: 'openid profile offline_access' }),
  });
  expect(res.status).toBe(201);
  const body = (await res.json()) as Record<string, string>;
  return { id: body.client_id!, secret: body.client_secret!, registrationToken: body.registration_access_token! };
}

async function remove(client: Registered): Promise<void> {
  const res = await fetch(`${server.url}/connect/register/${client.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${client.registrationToken}` } });
  expect(res.status).toBe(204);
}

/** A browser signed in as alice through an operator's client (the registered one never saw her). */
async function signedIn(): Promise<Browser> {
  const browser = new Browser(server.url);
  await signInAndAuthorize(server, browser, webRequest().params);
  return browser;
}

const request = (client: Registered, extra: Record<string, string> = {}) => webRequest({ scope: 'openid profile', ...extra }, client.id, rpRedirect);

function redirected(page: Page): Record<string, string> {
  expect(page.status).toBe(303);
  expect(page.location!.origin + page.location!.pathname).toBe(rpRedirect);
  return Object.fromEntries(page.location!.searchParams);
}

describe('a self-registered client', () => {
  it('prompt=none with a session answers consent_required, never a code', async () => {
    const client = await register();
    const browser = await signedIn();
    const { params } = request(client, { prompt: 'none' });
    expect(redirected(await browser.get(authorizeUrl(server, params)))).toEqual({
      error: 'consent_required', error_description: 'The user must consent.', state: params.state, iss: server.url,
    });
  });

  it('shows a consent page that says the operator has not verified it and names the redirect host', async () => {
    const client = await register();
    const browser = await signedIn();
    const page = await browser.get(authorizeUrl(server, request(client).params));
    expect(page.status).toBe(200);
    expect(page.html).toContain('<h1>Allow access?</h1>');
    expect(page.html).toContain('<p class="notice" role="alert"><strong>Your Bank</strong> registered itself with this service. The operator has not verified who runs it.');
    expect(page.html).toContain('After this page you will be sent to <strong class="redirect-target">rp.example.net</strong>.');
  });

  it('a consent given to that client is reused for the same scopes, but never for offline_access', async () => {
    const client = await register();
    const browser = await signedIn();
    const consent = await browser.get(authorizeUrl(server, request(client, { scope: 'openid profile offline_access' }).params));
    expect(Object.keys(redirected(await browser.submit(consent, { decision: 'approve' })))).toEqual(['code', 'state', 'iss']);

    const same = request(client, { prompt: 'none' }).params;
    expect(Object.keys(redirected(await browser.get(authorizeUrl(server, same))))).toEqual(['code', 'state', 'iss']);
    const offline = request(client, { prompt: 'none', scope: 'openid offline_access' }).params;
    expect(redirected(await browser.get(authorizeUrl(server, offline)))).toMatchObject({ error: 'consent_required', state: offline.state });

    // A consent given to another registered client counts for nothing here.
    const other = await register();
    const none = request(other, { prompt: 'none' }).params;
    expect(redirected(await browser.get(authorizeUrl(server, none)))).toMatchObject({ error: 'consent_required' });
  });

  it('the code it gets after consent works at the token endpoint', async () => {
    const client = await register();
    const browser = await signedIn();
    const { params, verifier } = request(client);
    const consent = await browser.get(authorizeUrl(server, params));
    const code = redirected(await browser.submit(consent, { decision: 'approve' })).code!;
    const tokens = await postForm(`${server.url}/connect/token`, { grant_type: 'authorization_code', code, redirect_uri: rpRedirect, code_verifier: verifier }, { authorization: basic(client.id, client.secret) });
    expect(tokens.status).toBe(200);
  });
});

describe('a client deleted while its page is open', () => {
  it('the sign-in form\'s POST answers the unknown-client page (400), not a 500', async () => {
    const client = await register();
    const browser = new Browser(server.url);
    const signIn = await browser.get(authorizeUrl(server, request(client).params));
    expect(signIn.html).toContain('<h1>Sign in</h1>');
    await remove(client);
    const page = await browser.submit(signIn, { username: alice.username, password: alice.password });
    expect(page.status).toBe(400);
    expect(page.location).toBeUndefined();
    expect(page.html).toContain(`<p role="alert">${unknownClientText}</p>`);
    expect(server.logs.some((l) => l.msg === 'authorization: the client is gone or disabled; the interaction ends' && l.clientId === client.id)).toBe(true);
    // The interaction is over: posting again is "start again", not a second try.
    expect((await browser.submit(signIn, { username: alice.username, password: alice.password })).html).toContain('<h1>Please start again</h1>');
  });

  it.each(['approve', 'deny'])('the consent form\'s %s answers the unknown-client page (400), and nothing goes to the redirect URI', async (decision) => {
    const client = await register();
    const browser = await signedIn();
    const consent = await browser.get(authorizeUrl(server, request(client).params));
    expect(consent.html).toContain('<h1>Allow access?</h1>');
    await remove(client);
    const page = await browser.submit(consent, { decision });
    expect(page.status).toBe(400);
    expect(page.location).toBeUndefined();
    expect(page.html).toContain(`<p role="alert">${unknownClientText}</p>`);
  });
});

describe('a client whose redirect URI is removed while its page is open', () => {
  it('the sign-in form\'s POST answers the unknown-client page (400): the code never goes to the URI the client no longer has', async () => {
    const client = await register();
    const browser = new Browser(server.url);
    const signIn = await browser.get(authorizeUrl(server, request(client).params));
    expect(signIn.html).toContain('<h1>Sign in</h1>');
    const moved = await fetch(`${server.url}/connect/register/${client.id}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${client.registrationToken}` },
      body: JSON.stringify({ client_id: client.id, client_name: 'Your Bank', redirect_uris: ['https://elsewhere.example.net/cb'], grant_types: ['authorization_code', 'refresh_token'], scope: 'openid profile offline_access' }),
    });
    expect(moved.status).toBe(200);
    const page = await browser.submit(signIn, { username: alice.username, password: alice.password });
    expect(page.status).toBe(400);
    expect(page.location).toBeUndefined();
    expect(page.html).toContain(`<p role="alert">${unknownClientText}</p>`);
  });
});
