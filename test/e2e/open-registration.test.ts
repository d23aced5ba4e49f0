/**
 * Issue 36: dynamic registration open to anonymous callers (`registration.policy: "open"`), as
 * MCP clients need it: each rule of the narrow policy with its RFC 7591 §3.2.2 error, the rate
 * limits per address and overall (429), consent asked every time, and a caller with an initial
 * access token still under the full policy.
 */
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserConfig } from '../../src/config/schema.js';
import { createRegistrationTokens } from '../../src/clients/registration/registration-tokens.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import { startServer, type TestServer } from '../support/server.js';
import { alice, authorizeUrl, Browser, signInConfig } from '../support/sign-in.js';

const redirect = 'http://127.0.0.1:33418/callback';

async function openConfig(overrides: Partial<UserConfig['registration']> = {}, extra: Partial<UserConfig> = {}): Promise<UserConfig> {
  return signInConfig({
    registration: {
      enabled: true, policy: 'open', allowedScopes: ['openid', 'profile', 'api1.read', 'offline_access'],
      allowedAuthMethods: ['client_secret_basic', 'none'], ...overrides,
    },
    ...extra,
  });
}

async function register(server: TestServer, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${server.url}/connect/register`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
}

const agent = { client_name: 'Agent', redirect_uris: [redirect], grant_types: ['authorization_code', 'refresh_token'], scope: 'openid api1.read offline_access' };

describe('the open policy', () => {
  let server: TestServer;
  let initial: string;
  beforeAll(async () => {
    const store = createMemoryStore();
    server = await startServer(await openConfig({ openRegistration: { maxPerAddress: 1000 } }), { store });
    initial = (await createRegistrationTokens({ store, clock: { now: () => Date.now() } }).issueInitial(3600, 10)).token;
  });
  afterAll(() => server?.close());

  it('registers a public client without a token; no method named means none', async () => {
    const answer = await register(server, agent);
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({ token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], redirect_uris: [redirect] });
    expect(answer.body).not.toHaveProperty('client_secret');
    expect(answer.body.registration_access_token).toEqual(expect.any(String));
  });

  it.each([
    ['a shared secret method', { token_endpoint_auth_method: 'client_secret_basic' }, 'invalid_client_metadata'],
    ['private_key_jwt', { token_endpoint_auth_method: 'private_key_jwt' }, 'invalid_client_metadata'],
    ['client_credentials', { grant_types: ['client_credentials'], redirect_uris: undefined }, 'invalid_client_metadata'],
    ['the device flow', { grant_types: ['urn:ietf:params:oauth:grant-type:device_code'] }, 'invalid_client_metadata'],
    ['a scope outside the policy', { scope: 'openid admin' }, 'invalid_client_metadata'],
    ['a custom scheme redirect URI', { redirect_uris: ['com.example.agent:/callback'] }, 'invalid_redirect_uri'],
    ['an http redirect URI off loopback', { redirect_uris: ['http://agent.example.com/callback'] }, 'invalid_redirect_uri'],
    ['no redirect URI', { redirect_uris: [] }, 'invalid_redirect_uri'],
  ])('refuses %s', async (_what, change, error) => {
    const answer = await register(server, { ...agent, ...change });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe(error);
  });

  it.each([['http://localhost:9/cb'], ['http://[::1]:9/cb'], ['https://agent.example.com/cb']])('accepts the redirect URI %s', async (uri) => {
    expect((await register(server, { ...agent, redirect_uris: [uri] })).status).toBe(201);
  });

  it('a caller with an initial access token still registers under the full policy', async () => {
    const answer = await register(server, { ...agent, redirect_uris: ['https://app.example.com/cb'], token_endpoint_auth_method: 'client_secret_basic' }, { authorization: `Bearer ${initial}` });
    expect(answer.status).toBe(201);
    expect(answer.body.client_secret).toEqual(expect.any(String));
    // A wrong token is not taken as anonymous.
    expect((await register(server, agent, { authorization: 'Bearer wrong' })).status).toBe(401);
  });

  it('an anonymous client stays public when it updates itself (RFC 7592 PUT)', async () => {
    const made = (await register(server, agent)).body;
    const res = await fetch(made.registration_client_uri as string, {
      method: 'PUT', headers: { 'content-type': 'application/json', authorization: `Bearer ${made.registration_access_token as string}` },
      body: JSON.stringify({ ...agent, client_id: made.client_id, token_endpoint_auth_method: 'client_secret_basic', grant_types: ['client_credentials'] }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as Record<string, unknown>).error).toBe('invalid_client_metadata');
  });

  it('runs the code flow with PKCE (oauth4webapi) and asks for consent every time', async () => {
    const clientId = (await register(server, agent)).body.client_id as string;
    const insecure = { [oauth.allowInsecureRequests]: true };
    const issuer = new URL(server.url);
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure));
    const client: oauth.Client = { client_id: clientId };
    const browser = new Browser(server.url);
    for (const round of [1, 2]) {
      const verifier = oauth.generateRandomCodeVerifier();
      const state = `round-${round}`;
      let page = await browser.get(authorizeUrl(server, {
        client_id: clientId, redirect_uri: redirect, response_type: 'code', scope: 'openid api1.read', state,
        code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
      }));
      if (round === 1) page = await browser.submit(page, { username: alice.username, password: alice.password });
      // Signed in already the second time, and still asked: an anonymous client's consent is never remembered.
      expect(page.html).toContain('<h1>Allow access?</h1>');
      page = await browser.submit(page, { decision: 'approve' });
      const params = oauth.validateAuthResponse(as, client, page.location!, state);
      const response = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, redirect, verifier, insecure);
      const result = await oauth.processAuthorizationCodeResponse(as, client, response);
      expect(result.access_token).toEqual(expect.any(String));
    }
  });

  it('refuses an authorization request without PKCE', async () => {
    const clientId = (await register(server, agent)).body.client_id as string;
    const page = await new Browser(server.url).get(authorizeUrl(server, { client_id: clientId, redirect_uri: redirect, response_type: 'code', scope: 'openid', state: 's' }));
    expect(page.location?.searchParams.get('error')).toBe('invalid_request');
  });
});

describe('the default policy', () => {
  it('still wants an initial access token', async () => {
    const server = await startServer(await openConfig({ policy: undefined }));
    try {
      const answer = await register(server, agent);
      expect(answer.status).toBe(401);
      expect(answer.body.error).toBe('invalid_token');
    } finally {
      await server.close();
    }
  });
});

describe('the open policy\'s rate limits', () => {
  let server: TestServer;
  beforeAll(async () => {
    // Behind a trusted proxy, so the test can speak from several addresses.
    server = await startServer(await openConfig({ openRegistration: { maxPerAddress: 2, maxTotal: 5 } }, { trustedProxies: ['127.0.0.1'] }));
  });
  afterAll(() => server?.close());
  const from = (address: string) => register(server, agent, { 'x-forwarded-for': address });

  it('per address: the third registration from one address is 429 with Retry-After', async () => {
    expect((await from('192.0.2.1')).status).toBe(201);
    expect((await from('192.0.2.1')).status).toBe(201);
    const third = await from('192.0.2.1');
    expect(third.status).toBe(429);
    expect(third.body.error).toBe('temporarily_unavailable');
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await from('192.0.2.2')).status).toBe(201);
  });

  it('overall: past maxTotal every address waits', async () => {
    // 3 counted so far (192.0.2.1 twice, 192.0.2.2 once), plus the refused one not counted overall.
    expect((await from('192.0.2.3')).status).toBe(201);
    expect((await from('192.0.2.4')).status).toBe(201);
    const over = await from('192.0.2.5');
    expect(over.status).toBe(429);
    expect(over.body.error_description).toMatch(/Too many clients registered/);
  });
});
