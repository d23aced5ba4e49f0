/**
 * Dynamic client registration (RFC 7591) and its management (RFC 7592), issue 19: raw requests
 * for the happy path and every error of RFC 7591 §3.2.2, then oauth4webapi and openid-client
 * registering and using a client. Off by default.
 */
import * as oauth from 'oauth4webapi';
import * as openid from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserConfig } from '../../src/config/schema.js';
import { createEntryChecker } from '../../src/clients/check-entry.js';
import { createClientAdmin } from '../../src/clients/client-admin.js';
import { createRegistrationTokens } from '../../src/clients/registration/registration-tokens.js';
import { hashSecret } from '../../src/sdk/hash.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import { createHash, randomBytes } from 'node:crypto';
import { decodeJwt } from 'jose';
import { makeSelfSigned, nodeCertificate } from '../support/certificates.js';
import { dpopKey } from '../support/dpop.js';
import { manualClock } from '../fixtures/grant-plugins/world.js';
import { redisSkipReason, redisUrl } from '../support/redis.js';
import { basic, postForm, startServer, type TestServer } from '../support/server.js';

const config: UserConfig = {
  apiScopes: [{ name: 'api1.read' }, { name: 'api1.write' }],
  apiResources: [{ name: 'api1', scopes: ['api1.read', 'api1.write'] }],
  identityResources: [{ name: 'openid', claims: ['sub'] }],
  clients: [{ clientId: 'm2m', clientSecrets: [{ value: hashSecret('m2m-secret') }], allowedGrantTypes: ['client_credentials'], allowedScopes: ['api1.read'] }],
  registration: { enabled: true, allowedGrantTypes: ['client_credentials', 'authorization_code', 'refresh_token'], allowedScopes: ['openid', 'api1.read'] },
  signing: { idTokenAlgorithms: ['RS256', 'ES256'] },
};

let server: TestServer;
let initial: string;

beforeAll(async () => {
  const store = createMemoryStore();
  server = await startServer(config, { store });
  initial = (await createRegistrationTokens({ store, clock: { now: () => Date.now() } }).issueInitial(3600, 1000)).token;
});
afterAll(() => server?.close());

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(server.url + path, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as Record<string, unknown>) : undefined };
}
const register = (body: unknown, token = initial) => call('POST', '/connect/register', body, { authorization: `Bearer ${token}` });
const m2mMetadata = { grant_types: ['client_credentials'], scope: 'api1.read', client_name: 'Reports' };

describe('registration', () => {
  it('is listed in discovery', async () => {
    const discovery = await call('GET', '/.well-known/openid-configuration');
    expect(discovery.body!.registration_endpoint).toBe(`${server.url}/connect/register`);
  });

  it('registers a client that authenticates at once; GET, PUT and DELETE with its registration access token', async () => {
    const reply = await register(m2mMetadata);
    expect(reply.status).toBe(201);
    expect(reply.headers.get('cache-control')).toBe('no-store');
    const body = reply.body!;
    expect(body).toEqual({
      client_id: expect.stringMatching(/^[\w-]{22}$/),
      client_name: 'Reports',
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
      token_endpoint_auth_method: 'client_secret_basic',
      scope: 'api1.read',
      dpop_bound_access_tokens: false,
      require_signed_request_object: false,
      client_secret: expect.stringMatching(/^[\w-]{43}$/),
      client_secret_expires_at: 0,
      client_id_issued_at: expect.any(Number),
      registration_access_token: expect.stringMatching(/^[\w-]{43}$/),
      registration_client_uri: `${server.url}/connect/register/${String(body.client_id)}`,
    });
    const id = String(body.client_id);
    const path = `/connect/register/${id}`;
    const rat = { authorization: `Bearer ${String(body.registration_access_token)}` };
    const token = await postForm(`${server.url}/connect/token`, { grant_type: 'client_credentials' }, { authorization: basic(id, String(body.client_secret)) });
    expect(token.status).toBe(200);

    const read = await call('GET', path, undefined, rat);
    expect(read).toMatchObject({ status: 200, body: { client_id: id, client_name: 'Reports', scope: 'api1.read', registration_client_uri: `${server.url}${path}` } });
    expect(read.body).not.toHaveProperty('client_secret');

    const updated = await call('PUT', path, { client_id: id, grant_types: ['client_credentials'], scope: 'api1.read', client_name: 'Reports v2' }, rat);
    expect(updated).toMatchObject({ status: 200, body: { client_id: id, client_name: 'Reports v2' } });
    // RFC 7592 §3 (issue 33): the PUT answers a new registration access token; the old one stops working.
    rat.authorization = `Bearer ${String(updated.body!.registration_access_token)}`;
    expect((await call('GET', path, undefined, rat)).body!.client_name).toBe('Reports v2');
    expect(await call('PUT', path, { client_id: 'other', scope: 'api1.read', grant_types: ['client_credentials'] }, rat)).toMatchObject({
      status: 400, body: { error: 'invalid_request', error_description: 'client_id in the body must be the client being updated.' },
    });

    // Another client's token opens nothing here.
    const other = (await register(m2mMetadata)).body!;
    expect(await call('GET', path, undefined, { authorization: `Bearer ${String(other.registration_access_token)}` })).toMatchObject({ status: 401, body: { error: 'invalid_token' } });

    expect(await call('DELETE', path, undefined, rat)).toMatchObject({ status: 204, body: undefined });
    expect(await call('GET', path, undefined, rat)).toMatchObject({ status: 401, body: { error: 'invalid_token', error_description: 'The access token is missing or invalid.' } });
    const after = await postForm(`${server.url}/connect/token`, { grant_type: 'client_credentials' }, { authorization: basic(id, String(body.client_secret)) });
    expect(after.status).toBe(401);
  });

  it('keeps the ID token algorithm a client asks for (id_token_signed_response_alg), RS256 when it names none', async () => {
    const web = { redirect_uris: ['https://app.example.com/cb'], scope: 'openid api1.read' };
    const es256 = await register({ ...web, id_token_signed_response_alg: 'ES256' });
    expect(es256).toMatchObject({ status: 201, body: { id_token_signed_response_alg: 'ES256' } });
    const read = await call('GET', `/connect/register/${String(es256.body!.client_id)}`, undefined, { authorization: `Bearer ${String(es256.body!.registration_access_token)}` });
    expect(read).toMatchObject({ status: 200, body: { id_token_signed_response_alg: 'ES256' } });
    expect(await register(web)).toMatchObject({ status: 201, body: { id_token_signed_response_alg: 'RS256' } });
    // A client without openid gets no ID token, and its metadata names no algorithm for one.
    expect((await register(m2mMetadata)).body).not.toHaveProperty('id_token_signed_response_alg');
  });

  it('dpop_bound_access_tokens (RFC 9449 §5.2): the client then gets tokens only with a DPoP proof', async () => {
    const reply = await register({ ...m2mMetadata, dpop_bound_access_tokens: true });
    expect(reply).toMatchObject({ status: 201, body: { dpop_bound_access_tokens: true } });
    const { client_id: id, client_secret: secret, registration_access_token: rat } = reply.body!;
    const path = `/connect/register/${String(id)}`;
    const auth = { authorization: `Bearer ${String(rat)}` };
    expect(await call('GET', path, undefined, auth)).toMatchObject({ status: 200, body: { dpop_bound_access_tokens: true } });
    const tokenUrl = `${server.url}/connect/token`;
    const bearer = await postForm(tokenUrl, { grant_type: 'client_credentials' }, { authorization: basic(String(id), String(secret)) });
    expect(bearer).toMatchObject({ status: 400, body: { error: 'invalid_request', error_description: 'A DPoP proof is required for this client.' } });
    const key = await dpopKey();
    const bound = await postForm(tokenUrl, { grant_type: 'client_credentials' }, { authorization: basic(String(id), String(secret)), DPoP: key.proof({ htu: tokenUrl }) });
    expect(bound).toMatchObject({ status: 200, body: { token_type: 'DPoP' } });
    // An update that leaves the member out takes its default (RFC 7592 §2.2): bearer tokens again.
    expect(await call('PUT', path, { client_id: id, ...m2mMetadata }, auth)).toMatchObject({ status: 200, body: { dpop_bound_access_tokens: false } });
    expect((await postForm(tokenUrl, { grant_type: 'client_credentials' }, { authorization: basic(String(id), String(secret)) })).status).toBe(200);
  });

  it('require_signed_request_object (RFC 9101 §10.5): a plain authorization request is then refused', async () => {
    const reply = await register({ redirect_uris: ['https://app.example.com/cb'], scope: 'openid api1.read', require_signed_request_object: true });
    expect(reply).toMatchObject({ status: 201, body: { require_signed_request_object: true } });
    const id = String(reply.body!.client_id);
    const authorize = await fetch(`${server.url}/connect/authorize?${new URLSearchParams({
      client_id: id, redirect_uri: 'https://app.example.com/cb', response_type: 'code', scope: 'openid', state: 's', code_challenge: 'a'.repeat(43), code_challenge_method: 'S256',
    })}`, { redirect: 'manual' });
    expect(authorize.status).toBe(303);
    expect(Object.fromEntries(new URL(authorize.headers.get('location')!).searchParams)).toMatchObject({ error: 'invalid_request', error_description: 'This client must send a signed request object (request).' });
    const read = await call('GET', `/connect/register/${id}`, undefined, { authorization: `Bearer ${String(reply.body!.registration_access_token)}` });
    expect(read).toMatchObject({ status: 200, body: { require_signed_request_object: true } });
  });

  it('backchannel_logout_uri and backchannel_logout_session_required (Back-Channel Logout §2.2): kept, read back, dropped by a PUT without them', async () => {
    const metadata = { redirect_uris: ['https://app.example.com/cb'], scope: 'openid api1.read', backchannel_logout_uri: 'https://app.example.com/logout?tenant=1' };
    const reply = await register({ ...metadata, backchannel_logout_session_required: false });
    expect(reply).toMatchObject({ status: 201, body: { backchannel_logout_uri: 'https://app.example.com/logout?tenant=1', backchannel_logout_session_required: false } });
    const id = String(reply.body!.client_id);
    const auth = { authorization: `Bearer ${String(reply.body!.registration_access_token)}` };
    expect(await call('GET', `/connect/register/${id}`, undefined, auth)).toMatchObject({ status: 200, body: { backchannel_logout_uri: 'https://app.example.com/logout?tenant=1', backchannel_logout_session_required: false } });
    // Without session_required the client gets what the service always sends: sid.
    const updated = await call('PUT', `/connect/register/${id}`, { client_id: id, ...metadata }, auth);
    expect(updated).toMatchObject({ status: 200, body: { backchannel_logout_uri: 'https://app.example.com/logout?tenant=1', backchannel_logout_session_required: true } });
    const { backchannel_logout_uri: _uri, ...without } = metadata;
    // Every PUT answers a new registration access token.
    const cleared = await call('PUT', `/connect/register/${id}`, { client_id: id, ...without }, { authorization: `Bearer ${String(updated.body!.registration_access_token)}` });
    expect(cleared.status).toBe(200);
    expect(cleared.body).not.toHaveProperty('backchannel_logout_uri');
    expect(cleared.body).not.toHaveProperty('backchannel_logout_session_required');
  });

  it('refuses a backchannel_logout_uri that is not https, has a fragment or is not a URL, with 400 invalid_client_metadata', async () => {
    const base = { redirect_uris: ['https://app.example.com/cb'], scope: 'openid api1.read' };
    for (const [uri, description] of [
      ['http://app.example.com/logout', 'backchannel_logout_uri must use https.'],
      ['https://app.example.com/logout#x', 'backchannel_logout_uri must be an absolute http(s) URL without a fragment.'],
      ['/logout', 'backchannel_logout_uri must be an absolute http(s) URL without a fragment.'],
    ] as const) {
      expect(await register({ ...base, backchannel_logout_uri: uri })).toMatchObject({ status: 400, body: { error: 'invalid_client_metadata', error_description: description } });
    }
    expect(await register({ ...base, backchannel_logout_uri: 'https://app.example.com/logout', backchannel_logout_session_required: 'yes' }))
      .toMatchObject({ status: 400, body: { error: 'invalid_client_metadata', error_description: 'backchannel_logout_session_required must be true or false.' } });
  });

  it('refuses a missing, unknown or other kind of initial access token with 401 invalid_token', async () => {
    const missing = await call('POST', '/connect/register', m2mMetadata);
    expect(missing).toMatchObject({ status: 401, body: { error: 'invalid_token', error_description: 'The access token is missing or invalid.' } });
    expect(missing.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    expect(await register(m2mMetadata, 'x'.repeat(43))).toMatchObject({ status: 401, body: { error: 'invalid_token' } });
    const registered = (await register(m2mMetadata)).body!;
    expect(await register(m2mMetadata, String(registered.registration_access_token))).toMatchObject({ status: 401, body: { error: 'invalid_token' } });
  });

  describe('RFC 7591 §3.2.2 errors', () => {
    it.each([
      // The default policy is "https" since issue 33 (loopback http only with the native-app policy, below).
      ['a redirect URI over plain http', { redirect_uris: ['http://app.example.com/cb'], scope: 'openid' }, 'invalid_redirect_uri', 'Redirect URIs must use https.'],
      ['a redirect URI with a fragment', { redirect_uris: ['https://app.example.com/cb#x'], scope: 'openid' }, 'invalid_redirect_uri', 'A redirect URI must not have a fragment.'],
      ['a redirect URI that is not absolute', { redirect_uris: ['/cb'], scope: 'openid' }, 'invalid_redirect_uri', 'A redirect URI is not an absolute URI.'],
      ['authorization_code without redirect URIs', { scope: 'openid' }, 'invalid_redirect_uri', 'redirect_uris is required for the authorization_code grant.'],
      ['a grant type the policy does not allow', { grant_types: ['password'], scope: 'api1.read' }, 'invalid_client_metadata', 'A requested grant type is not allowed here (allowed: client_credentials, authorization_code, refresh_token).'],
      ['a scope the policy does not allow', { grant_types: ['client_credentials'], scope: 'api1.write' }, 'invalid_client_metadata', 'A requested scope is not allowed here.'],
      ['an auth method the policy does not allow', { grant_types: ['client_credentials'], scope: 'api1.read', token_endpoint_auth_method: 'none' }, 'invalid_client_metadata', 'The token endpoint auth method is not allowed here (allowed: client_secret_basic, client_secret_post).'],
      ['grant_types of the wrong type', { grant_types: 'client_credentials' }, 'invalid_client_metadata', 'grant_types must be an array of at most 20 non-empty strings.'],
      ['response types that contradict the grant types', { grant_types: ['client_credentials'], response_types: ['code'], scope: 'api1.read' }, 'invalid_client_metadata', 'response_types code and grant_types authorization_code go together.'],
      ['an ID token algorithm the service has no key for', { redirect_uris: ['https://app.example.com/cb'], scope: 'openid', id_token_signed_response_alg: 'PS256' }, 'invalid_client_metadata', 'id_token_signed_response_alg must be one of RS256, ES256.'],
      ['an unsigned ID token', { redirect_uris: ['https://app.example.com/cb'], scope: 'openid', id_token_signed_response_alg: 'none' }, 'invalid_client_metadata', 'id_token_signed_response_alg must be one of RS256, ES256.'],
      ['dpop_bound_access_tokens that is not a boolean', { ...m2mMetadata, dpop_bound_access_tokens: 'yes' }, 'invalid_client_metadata', 'dpop_bound_access_tokens must be true or false.'],
      ['certificate-bound tokens from a server without mutual TLS', { ...m2mMetadata, tls_client_certificate_bound_access_tokens: true }, 'invalid_client_metadata', 'tls_client_certificate_bound_access_tokens needs mutual TLS, which this server does not offer.'],
      ['an implicit response type', { response_types: ['token'], redirect_uris: ['https://app.example.com/cb'] }, 'invalid_client_metadata', 'Only the response type code is supported.'],
      ['an array instead of an object', [], 'invalid_client_metadata', 'The request body must be a JSON object of client metadata.'],
      ['JSON that does not parse', '{"grant_types": [', 'invalid_client_metadata', 'The request body is not valid JSON.'],
      ['a software statement that is not a JWT', { ...m2mMetadata, software_statement: 'not a jwt' }, 'invalid_software_statement', 'The software statement is not a JWT.'],
      ['a software statement from an issuer nobody approved', { ...m2mMetadata, software_statement: 'eyJhbGciOiJub25lIn0.eyJzb2Z0d2FyZV9pZCI6IngifQ.' }, 'unapproved_software_statement', 'Software statements are not accepted here.'],
    ])('%s', async (_case, body, error, description) => {
      const reply = await register(body);
      expect(reply).toMatchObject({ status: 400, body: { error, error_description: description } });
      expect(Object.keys(reply.body!).sort()).toEqual(['error', 'error_description']);
    });

    it('a body that is not JSON is invalid_request', async () => {
      const reply = await call('POST', '/connect/register', undefined, { authorization: `Bearer ${initial}`, 'content-type': 'application/x-www-form-urlencoded' });
      expect(reply).toMatchObject({ status: 400, body: { error: 'invalid_request', error_description: 'The request body must be application/json.' } });
    });
  });
});

describe('issue 33: what a registrant may change, and the tokens of registration', () => {
  const bearerOf = (body: Record<string, unknown> | undefined) => ({ authorization: `Bearer ${String(body!.registration_access_token)}` });

  it('a PUT changes only the registrant\'s metadata: what the operator set (svc clients update) stays', async () => {
    const web = { redirect_uris: ['https://app.example.com/cb'], scope: 'openid api1.read', client_name: 'Web' };
    const reply = await register({ ...web, dpop_bound_access_tokens: true });
    expect(reply.status).toBe(201);
    const id = String(reply.body!.client_id);
    const path = `/connect/register/${id}`;
    // The operator's door: the ClientAdmin `svc clients update` uses, on the server's own store.
    const { app } = server;
    const admin = createClientAdmin({ records: app.store.clientRecords, checker: createEntryChecker(app.config, app.registry), config: app.config, clock: { now: () => Date.now() } });
    const operatorFields = {
      requireConsent: true, requirePushedAuthorization: true, requireCertificateBoundTokens: false, accessTokenLifetime: 600, absoluteRefreshTokenLifetime: 86_400,
      allowedCorsOrigins: ['https://app.example.com'], postLogoutRedirectUris: ['https://app.example.com/bye'], properties: { registered: 'true', tier: 'gold' },
    };
    await admin.update('client', id, operatorFields);
    // The operator imposes DPoP too: the registrant asked for it already, and can no longer take it back.
    await admin.update('client', id, { requireDPoP: true });

    const updated = await call('PUT', path, { client_id: id, ...web, client_name: 'Web v2', redirect_uris: ['https://app.example.com/cb2'] }, bearerOf(reply.body));
    expect(updated).toMatchObject({ status: 200, body: { client_name: 'Web v2', redirect_uris: ['https://app.example.com/cb2'], dpop_bound_access_tokens: true } });
    const stored = (await admin.show('client', id)).definition;
    expect(stored).toMatchObject({ ...operatorFields, requireDPoP: true, clientName: 'Web v2', redirectUris: ['https://app.example.com/cb2'] });
    expect((stored.properties as Record<string, string>).registered).toBe('true');
    expect(await call('GET', path, undefined, bearerOf(updated.body))).toMatchObject({ status: 200, body: { dpop_bound_access_tokens: true, client_name: 'Web v2' } });
  });

  it('a registrant takes back only the DPoP requirement it asked for itself', async () => {
    const reply = await register({ ...m2mMetadata, dpop_bound_access_tokens: true });
    const id = String(reply.body!.client_id);
    const put = await call('PUT', `/connect/register/${id}`, { client_id: id, ...m2mMetadata, dpop_bound_access_tokens: false }, bearerOf(reply.body));
    expect(put).toMatchObject({ status: 200, body: { dpop_bound_access_tokens: false } });
  });

  it('every PUT answers a new registration access token (RFC 7592 §3); the old one stops working', async () => {
    const reply = await register(m2mMetadata);
    const id = String(reply.body!.client_id);
    const path = `/connect/register/${id}`;
    const first = await call('PUT', path, { client_id: id, ...m2mMetadata }, bearerOf(reply.body));
    expect(first.status).toBe(200);
    expect(first.body!.registration_access_token).toMatch(/^[\w-]{43}$/);
    expect(first.body!.registration_access_token).not.toBe(reply.body!.registration_access_token);
    expect(await call('GET', path, undefined, bearerOf(reply.body))).toMatchObject({ status: 401, body: { error: 'invalid_token' } });
    expect(await call('PUT', path, { client_id: id, ...m2mMetadata }, bearerOf(reply.body))).toMatchObject({ status: 401, body: { error: 'invalid_token' } });
    expect(await call('GET', path, undefined, bearerOf(first.body))).toMatchObject({ status: 200, body: { client_id: id } });
  });

  it('offline_access and the refresh_token grant only when registration.allowedScopes lists offline_access', async () => {
    const web = { redirect_uris: ['https://app.example.com/cb'] };
    expect(await register({ ...web, scope: 'openid offline_access' })).toMatchObject({ status: 400, body: { error: 'invalid_client_metadata', error_description: 'A requested scope is not allowed here.' } });
    expect(await register({ ...web, scope: 'openid', grant_types: ['authorization_code', 'refresh_token'] })).toMatchObject({
      status: 400, body: { error: 'invalid_client_metadata', error_description: 'The refresh_token grant needs offline_access, which is not allowed here.' },
    });
  });

  it('refuses redirect URIs that cannot be meant, with the shared rule, never quoting them', async () => {
    for (const [uri, description] of [
      ['https://app.example.com/*', "A redirect URI is compared as an exact string (RFC 9700 section 2.1), so '*' is no wildcard; list each URI the client uses, such as 'https://app.example.com/callback'."],
      ['app.example.com:8443/callback', "A redirect URI needs its scheme: without one, 'host:port/path' is read as a custom scheme; write 'https://' (or 'http://' for a loopback address) in front."],
      ['https://app.example.com/cb ', 'A redirect URI must not contain spaces, tabs or line breaks (a trailing space is easy to miss); remove them, or write a space in a path as %20.'],
      ['HTTPS://APP.EXAMPLE.COM/cb', "A redirect URI is compared as an exact string (RFC 9700 section 2.1) and must be written as a browser sends it back; the scheme and host in lower case, '//' after the scheme."],
      ['http://127.0.0.1:8080/cb', 'Redirect URIs must use https.'],
      ['com.example.app:/cb', 'Redirect URIs must use https.'],
    ]) {
      expect(await register({ redirect_uris: [uri], scope: 'openid' }), uri).toMatchObject({ status: 400, body: { error: 'invalid_redirect_uri', error_description: description } });
    }
  });

  it('an initial access token registers at most its quota of clients; a refused registration uses none', async () => {
    const tokens = createRegistrationTokens({ store: server.app.store, clock: { now: () => Date.now() } });
    const { token } = await tokens.issueInitial(3600, 2);
    expect((await register({ ...m2mMetadata, scope: 'api1.write' }, token)).status).toBe(400);
    expect((await register(m2mMetadata, token)).status).toBe(201);
    expect((await register(m2mMetadata, token)).status).toBe(201);
    expect(await register(m2mMetadata, token)).toMatchObject({ status: 401, body: { error: 'invalid_token', error_description: 'The access token is missing or invalid.' } });
  });
});

describe('issue 33: a native-app policy with public clients and offline access', () => {
  let native: TestServer;
  let token: string;
  beforeAll(async () => {
    const store = createMemoryStore();
    native = await startServer({
      ...config,
      registration: {
        enabled: true, allowedGrantTypes: ['client_credentials', 'authorization_code', 'refresh_token'], allowedScopes: ['openid', 'api1.read', 'offline_access'],
        allowedAuthMethods: ['client_secret_basic', 'none'], redirectUris: 'https-or-loopback',
      },
    }, { store });
    token = (await createRegistrationTokens({ store, clock: { now: () => Date.now() } }).issueInitial(3600, 100)).token;
  });
  afterAll(() => native?.close());
  const registerAt = async (body: unknown) => {
    const res = await fetch(`${native.url}/connect/register`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  it('refuses a public client (token_endpoint_auth_method none) with client_credentials', async () => {
    expect(await registerAt({ grant_types: ['client_credentials'], scope: 'api1.read', token_endpoint_auth_method: 'none' })).toMatchObject({
      status: 400, body: { error: 'invalid_client_metadata', error_description: 'A public client (token_endpoint_auth_method none) cannot use the client_credentials grant.' },
    });
    expect(await registerAt({ grant_types: ['client_credentials'], scope: 'api1.read' })).toMatchObject({ status: 201 });
  });

  it('accepts loopback redirect URIs, offline_access and the refresh_token grant when the policy says so', async () => {
    const reply = await registerAt({
      redirect_uris: ['http://127.0.0.1:8080/cb', 'http://[::1]/cb'], grant_types: ['authorization_code', 'refresh_token'], scope: 'openid offline_access', token_endpoint_auth_method: 'none',
    });
    expect(reply).toMatchObject({ status: 201, body: { scope: 'openid offline_access', token_endpoint_auth_method: 'none', redirect_uris: ['http://127.0.0.1:8080/cb', 'http://[::1]/cb'] } });
    expect(await registerAt({ redirect_uris: ['http://app.example.com/cb'], scope: 'openid' })).toMatchObject({
      status: 400, body: { error: 'invalid_redirect_uri', error_description: 'Redirect URIs must use https, or http on a loopback address.' },
    });
  });
});

describe('issue 33: wrong registration tokens and old registration access tokens', () => {
  let guarded: TestServer;
  let store: ReturnType<typeof createMemoryStore>;
  const clock = manualClock(Date.now());
  beforeAll(async () => {
    store = createMemoryStore();
    guarded = await startServer({ ...config, authThrottle: { addressThreshold: 3 }, registration: { ...config.registration, registrationAccessTokenLifetime: 3600 } }, { store, clock });
  });
  afterAll(() => guarded?.close());
  const at = async (method: string, path: string, bearer: string, body?: unknown) => {
    const res = await fetch(guarded.url + path, {
      method, headers: { 'content-type': 'application/json', authorization: `Bearer ${bearer}` }, ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, retryAfter: res.headers.get('retry-after'), body: text ? (JSON.parse(text) as Record<string, unknown>) : undefined };
  };

  it('a registration access token expires (registration.registrationAccessTokenLifetime)', async () => {
    const { token } = await createRegistrationTokens({ store, clock }).issueInitial(86_400, 1);
    const reply = await at('POST', '/connect/register', token, m2mMetadata);
    expect(reply.status).toBe(201);
    const path = `/connect/register/${String(reply.body!.client_id)}`;
    clock.advance(3599);
    expect((await at('GET', path, String(reply.body!.registration_access_token))).status).toBe(200);
    clock.advance(2);
    expect(await at('GET', path, String(reply.body!.registration_access_token))).toMatchObject({ status: 401, body: { error: 'invalid_token' } });
  });

  it('answers an address that keeps sending wrong tokens 429 with Retry-After, even with a right one, until it has waited', async () => {
    clock.advance(3600); // the failure above is forgotten after authThrottle.window
    const { token } = await createRegistrationTokens({ store, clock }).issueInitial(86_400, 5);
    for (let i = 0; i < 3; i++) expect((await at('POST', '/connect/register', 'x'.repeat(43), m2mMetadata)).status).toBe(401);
    expect(await at('POST', '/connect/register', token, m2mMetadata)).toMatchObject({
      status: 429, retryAfter: '1', body: { error: 'temporarily_unavailable', error_description: 'Too many wrong registration tokens; retry after 1 seconds.' },
    });
    expect((await at('GET', '/connect/register/someone', 'y'.repeat(43))).status).toBe(429);
    clock.advance(1);
    expect((await at('POST', '/connect/register', token, m2mMetadata)).status).toBe(201);
  });
});

describe.skipIf(await redisSkipReason('the shared registration throttle'))('issue 33: the wrong-token throttle counts once for every node (Redis counters)', () => {
  it('wrong tokens sent to one node make the other answer 429', async () => {
    const store = createMemoryStore();
    const clock = manualClock(Date.now());
    const shared = { ...config, authThrottle: { addressThreshold: 2 }, counters: redisUrl, counterKeyPrefix: `svc-test:${randomBytes(6).toString('hex')}:` };
    const [a, b] = [await startServer(shared, { store, clock }), await startServer(shared, { store, clock })];
    try {
      const post = (node: TestServer, bearer: string) => fetch(`${node.url}/connect/register`, {
        method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${bearer}` }, body: JSON.stringify(m2mMetadata),
      });
      for (let i = 0; i < 2; i++) expect((await post(a, 'x'.repeat(43))).status).toBe(401);
      const blocked = await post(b, 'x'.repeat(43));
      expect(blocked.status).toBe(429);
      expect(blocked.headers.get('retry-after')).toBe('1');
    } finally {
      await a.close();
      await b.close();
    }
  });
});

describe('interop', () => {
  it('oauth4webapi registers a client and uses its credentials', async () => {
    const as = await oauth.processDiscoveryResponse(new URL(server.url), await oauth.discoveryRequest(new URL(server.url), { [oauth.allowInsecureRequests]: true }));
    const response = await oauth.dynamicClientRegistrationRequest(as, { grant_types: ['client_credentials'], scope: 'api1.read', token_endpoint_auth_method: 'client_secret_post' }, {
      initialAccessToken: initial,
      [oauth.allowInsecureRequests]: true,
    });
    const client = await oauth.processDynamicClientRegistrationResponse(response);
    expect(client.token_endpoint_auth_method).toBe('client_secret_post');
    const tokenResponse = await oauth.clientCredentialsGrantRequest(as, client, oauth.ClientSecretPost(String(client.client_secret)), new URLSearchParams({ scope: 'api1.read' }), {
      [oauth.allowInsecureRequests]: true,
    });
    const tokens = await oauth.processClientCredentialsResponse(as, client, tokenResponse);
    expect(tokens.scope).toBe('api1.read');
  });

  // openid-client sends a registered secret in the body unless told otherwise; a client that
  // named no method may use either secret method, so its default works.
  it('openid-client registers a client and uses its credentials', async () => {
    const configuration = await openid.dynamicClientRegistration(new URL(server.url), { grant_types: ['client_credentials'], scope: 'api1.read' }, undefined, {
      initialAccessToken: initial,
      execute: [openid.allowInsecureRequests],
    });
    const metadata = configuration.clientMetadata();
    expect(metadata.client_id).toMatch(/^[\w-]{22}$/);
    expect(metadata.registration_client_uri).toBe(`${server.url}/connect/register/${metadata.client_id}`);
    const tokens = await openid.clientCredentialsGrant(configuration, { scope: 'api1.read' });
    expect(tokens.scope).toBe('api1.read');
  });
});

describe('certificate-bound tokens for a registered client (RFC 8705 §3.4)', () => {
  it('tls_client_certificate_bound_access_tokens binds its tokens to the certificate; without one it gets none', async () => {
    const header = 'X-SSL-Client-Cert';
    const store = createMemoryStore();
    // Behind a TLS-terminating proxy at 127.0.0.1 that forwards the certificate URL-encoded, as nginx's $ssl_client_escaped_cert.
    const mtls = await startServer({ ...config, trustedProxies: ['127.0.0.1'], mtls: { certificateHeader: header } }, { store });
    try {
      const token = (await createRegistrationTokens({ store, clock: { now: () => Date.now() } }).issueInitial(3600, 1000)).token;
      const reply = await fetch(`${mtls.url}/connect/register`, {
        method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ ...m2mMetadata, tls_client_certificate_bound_access_tokens: true }),
      });
      const body = (await reply.json()) as Record<string, unknown>;
      expect(reply.status).toBe(201);
      expect(body).toMatchObject({ tls_client_certificate_bound_access_tokens: true, dpop_bound_access_tokens: false });
      const authorization = basic(String(body.client_id), String(body.client_secret));
      const certificate = await makeSelfSigned('CN=reports');
      const bound = await postForm(`${mtls.url}/connect/token`, { grant_type: 'client_credentials' }, { authorization, [header]: encodeURIComponent(certificate.certificatePem) });
      expect(bound.status).toBe(200);
      expect(decodeJwt(String(bound.body.access_token)).cnf).toEqual({ 'x5t#S256': createHash('sha256').update(nodeCertificate(certificate).raw).digest('base64url') });
      expect(await postForm(`${mtls.url}/connect/token`, { grant_type: 'client_credentials' }, { authorization })).toMatchObject({
        status: 400, body: { error: 'invalid_request', error_description: 'This client must present a TLS client certificate: its access tokens are bound to it.' },
      });
    } finally {
      await mtls.close();
    }
  });
});

describe('registration off (the default)', () => {
  it('answers 404 and is not in discovery', async () => {
    const off = await startServer({ ...config, registration: undefined });
    try {
      const discovery = (await fetch(`${off.url}/.well-known/openid-configuration`).then((r) => r.json())) as Record<string, unknown>;
      expect(discovery).not.toHaveProperty('registration_endpoint');
      const reply = await fetch(`${off.url}/connect/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(reply.status).toBe(404);
    } finally {
      await off.close();
    }
  });
});
