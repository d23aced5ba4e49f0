/**
 * Issue 36: a `client_id` that is an https URL names a client ID metadata document
 * (draft-ietf-oauth-client-id-metadata-document-03), fetched from a real https server on
 * loopback. The happy path runs the code flow with oauth4webapi as a public client; every way a
 * document or its fetch can fail (SSRF cases included) has its own test, and none is a 500.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as oauth from 'oauth4webapi';
import { postForm, startServer, type TestServer } from '../support/server.js';
import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { alice, authorizeUrl, Browser, pkce, signInConfig } from '../support/sign-in.js';
import { JWT_BEARER, makeKey, publicJwk, type TestKey } from '../plugins/private-key-jwt/helpers.js';
import { startDocumentServer, type DocumentServer } from '../support/document-server.js';

const redirect = 'http://127.0.0.1/agent/callback';
let documents: DocumentServer;
let server: TestServer;
let key: TestKey;
let otherKey: TestKey;

/** A good public client's document at `path`. */
const documentAt = (path: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  client_id: `${documents.url}${path}`, client_name: 'Agent', redirect_uris: [redirect], token_endpoint_auth_method: 'none',
  grant_types: ['authorization_code'], response_types: ['code'], ...extra,
});

const cimd = (overrides: Record<string, unknown> = {}) => ({
  enabled: true, allowedAddresses: ['127.0.0.1'], trustedCertificates: documents.caFile,
  allowedScopes: ['openid', 'profile', 'api1.read'], timeout: 1, maxBytes: 2048, ...overrides,
});

beforeAll(async () => {
  documents = await startDocumentServer();
  [key, otherKey] = await Promise.all([makeKey('P-256'), makeKey('P-256')]);
  documents.json('/signed.json', documentAt('/signed.json', { token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [publicJwk(key, { alg: 'ES256' })] } }));
  documents.json('/signed-uri.json', documentAt('/signed-uri.json', { token_endpoint_auth_method: 'private_key_jwt', jwks_uri: `${documents.url}/jwks.json` }));
  documents.json('/jwks.json', { keys: [publicJwk(key, { alg: 'ES256' })] });
  documents.json('/good.json', documentAt('/good.json'));
  documents.json('/cached.json', documentAt('/cached.json'), { 'cache-control': 'max-age=600' });
  documents.json('/mismatch.json', documentAt('/mismatch.json', { client_id: 'https://elsewhere.example/agent.json' }));
  documents.json('/secret.json', documentAt('/secret.json', { client_secret: 'shared' }));
  documents.json('/basic.json', documentAt('/basic.json', { token_endpoint_auth_method: 'client_secret_basic' }));
  documents.json('/no-redirects.json', documentAt('/no-redirects.json', { redirect_uris: [] }));
  documents.json('/large.json', documentAt('/large.json', { padding: 'x'.repeat(4096) }));
  documents.route('/text.json', (_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end(JSON.stringify(documentAt('/text.json'))));
  documents.route('/broken.json', (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"client_id": '));
  documents.route('/slow.json', (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    setTimeout(() => res.end(JSON.stringify(documentAt('/slow.json'))), 2500).unref();
  });
  documents.route('/elsewhere.json', (_req, res) => res.writeHead(302, { location: 'https://elsewhere.example/agent.json' }).end());
  documents.route('/moved.json', (_req, res) => res.writeHead(301, { location: `${documents.url}/good.json` }).end());
  server = await startServer(await signInConfig({ clientIdMetadataDocuments: cimd() }));
});
afterAll(async () => {
  await server?.close();
  await documents?.close();
});

/** The token endpoint's answer to a code redemption by `clientId` (the code does not matter: the client is judged first). */
const redeem = (target: TestServer, clientId: string) =>
  postForm(`${target.url}/connect/token`, { grant_type: 'authorization_code', code: 'x', redirect_uri: redirect, code_verifier: 'v'.repeat(43), client_id: clientId });

/** The authorization endpoint's page for `clientId`. */
async function authorizePage(target: TestServer, clientId: string, redirectUri = redirect) {
  const { challenge } = pkce();
  return new Browser(target.url).get(authorizeUrl(target, {
    client_id: clientId, redirect_uri: redirectUri, response_type: 'code', scope: 'openid', state: 's', code_challenge: challenge, code_challenge_method: 'S256',
  }));
}

async function expectRefused(path: string, reason: RegExp): Promise<void> {
  const answer = await redeem(server, `${documents.url}${path}`);
  expect(answer.status).toBe(401);
  expect(answer.body.error).toBe('invalid_client');
  expect(answer.body.error_description).toMatch(reason);
  const page = await authorizePage(server, `${documents.url}${path}`);
  expect(page.status).toBe(400);
  expect(page.html).toContain('could not be fetched or is not valid');
}

describe('discovery', () => {
  it('advertises client_id_metadata_document_supported only when documents are accepted', async () => {
    const on = (await (await fetch(`${server.url}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(on.client_id_metadata_document_supported).toBe(true);
    expect(on.token_endpoint_auth_methods_supported).toContain('none');
    const off = await startServer(await signInConfig());
    try {
      const doc = (await (await fetch(`${off.url}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
      expect(doc).not.toHaveProperty('client_id_metadata_document_supported');
      // Off: an https client_id is just an unknown client.
      expect((await redeem(off, `${documents.url}/good.json`)).body).toMatchObject({ error: 'invalid_client', error_description: 'Client authentication failed.' });
      expect(documents.hits.get('/good.json') ?? 0).toBe(0);
    } finally {
      await off.close();
    }
  });
});

describe('a public client named by its document', () => {
  it('runs the code flow with oauth4webapi; the consent page shows the document host', async () => {
    const clientId = `${documents.url}/good.json`;
    const insecure = { [oauth.allowInsecureRequests]: true };
    const issuer = new URL(server.url);
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure));
    const client: oauth.Client = { client_id: clientId };
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const nonce = oauth.generateRandomNonce();
    const params = {
      client_id: clientId, redirect_uri: redirect, response_type: 'code', scope: 'openid profile api1.read', state, nonce,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
    };
    const browser = new Browser(server.url);
    let page = await browser.get(authorizeUrl(server, params));
    page = await browser.submit(page, { username: alice.username, password: alice.password });
    expect(page.html).toContain('<h1>Allow access?</h1>');
    expect(page.html).toContain(`<strong>Agent (127.0.0.1:${documents.port})</strong>`);
    page = await browser.submit(page, { decision: 'approve' });
    expect(page.status).toBe(303);
    const callback = oauth.validateAuthResponse(as, client, page.location!, state);
    const response = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), callback, redirect, verifier, insecure);
    const result = await oauth.processAuthorizationCodeResponse(as, client, response, { expectedNonce: nonce, requireIdToken: true });
    expect(oauth.getValidatedIdTokenClaims(result)).toMatchObject({ sub: alice.subjectId, aud: clientId, nonce });
    expect(result.access_token).toBeTruthy();

    // Consent is never remembered for such a client: the same browser is asked again.
    const again = await browser.get(authorizeUrl(server, { ...params, state: 'again' }));
    expect(again.html).toContain('<h1>Allow access?</h1>');
  });

  it('needs PKCE', async () => {
    const page = await new Browser(server.url).get(authorizeUrl(server, {
      client_id: `${documents.url}/good.json`, redirect_uri: redirect, response_type: 'code', scope: 'openid', state: 's',
    }));
    expect(page.status).toBe(303);
    expect(page.location!.searchParams.get('error')).toBe('invalid_request');
  });

  it('keeps a document as long as its Cache-Control says: one fetch for several requests', async () => {
    const clientId = `${documents.url}/cached.json`;
    for (let i = 0; i < 3; i++) expect((await authorizePage(server, clientId)).status).toBe(200);
    expect(documents.hits.get('/cached.json')).toBe(1);
  });
});

describe('a client with private_key_jwt', () => {
  async function redeemSigned(clientId: string, signer: TestKey) {
    const now = Math.floor(Date.now() / 1000);
    const assertion = await new SignJWT({ iss: clientId, sub: clientId, aud: server.url, iat: now, exp: now + 60, jti: randomUUID() })
      .setProtectedHeader({ alg: 'ES256' }).sign(signer.privateKey);
    return postForm(`${server.url}/connect/token`, {
      grant_type: 'authorization_code', code: 'x', redirect_uri: redirect, code_verifier: 'v'.repeat(43), client_assertion_type: JWT_BEARER, client_assertion: assertion,
    });
  }

  it('authenticates with a key of the document\'s jwks (the code is then judged: invalid_grant)', async () => {
    expect((await redeemSigned(`${documents.url}/signed.json`, key)).body.error).toBe('invalid_grant');
    expect((await redeemSigned(`${documents.url}/signed.json`, otherKey)).body.error).toBe('invalid_client');
  });

  it('authenticates with a key its jwks_uri serves', async () => {
    expect((await redeemSigned(`${documents.url}/signed-uri.json`, key)).body.error).toBe('invalid_grant');
    expect((await redeemSigned(`${documents.url}/signed-uri.json`, otherKey)).body.error).toBe('invalid_client');
  });
});

describe('documents that cannot be used', () => {
  it('a client_id that is not the URL of the document', () => expectRefused('/mismatch.json', /client_id is not the URL it was fetched from/));
  it('a document with a client_secret', () => expectRefused('/secret.json', /client_secret/));
  it('a shared-secret auth method', () => expectRefused('/basic.json', /token_endpoint_auth_method/));
  it('a document without redirect URIs', () => expectRefused('/no-redirects.json', /no redirect_uris/));
  it('a missing document (404)', () => expectRefused('/missing.json', /did not answer 200/));
  it('a document that is not served as JSON', () => expectRefused('/text.json', /not served as application\/json/));
  it('a document that is not valid JSON', () => expectRefused('/broken.json', /not valid JSON/));
  it('an oversized document', () => expectRefused('/large.json', /too large/));
  it('a slow document (time-out)', () => expectRefused('/slow.json', /took too long/), 10_000);
  it('a redirect to another host is not followed', () => expectRefused('/elsewhere.json', /redirect/));
  it('a redirect on the same host is not followed either', () => expectRefused('/moved.json', /redirect/));
  it('a private, link-local or loopback address, refused before connecting', async () => {
    for (const clientId of ['https://10.1.2.3/agent.json', 'https://169.254.169.254/latest/meta-data.json', 'https://[::1]:1/agent.json']) {
      const answer = await redeem(server, clientId);
      expect(answer.status).toBe(401);
      expect(answer.body.error_description).toMatch(/address that may not be fetched from/);
    }
  });

  it('a redirect URI the document does not list: the error page, no redirect', async () => {
    const page = await authorizePage(server, `${documents.url}/good.json`, 'http://127.0.0.1/other');
    expect(page.status).toBe(400);
    expect(page.location).toBeUndefined();
    expect(page.html).toContain('not registered for it');
  });

  it('an http URL is no document: an unknown client', async () => {
    const clientId = `http://127.0.0.1:${documents.port}/good.json`;
    expect((await redeem(server, clientId)).body).toMatchObject({ error: 'invalid_client', error_description: 'Client authentication failed.' });
    const page = await authorizePage(server, clientId);
    expect(page.status).toBe(400);
    expect(page.html).toContain('is not known');
  });

  it('a URL with a fragment, dot segments or no path', async () => {
    for (const clientId of [`${documents.url}/good.json#x`, `${documents.url}/a/../good.json`, `${documents.url}/`]) {
      const answer = await redeem(server, clientId);
      expect(answer.status).toBe(401);
      expect(answer.body.error_description).toMatch(/not a URL a client ID metadata document may have/);
    }
  });
});

describe('a deployment that restricts hosts and addresses', () => {
  let strict: TestServer;
  beforeAll(async () => {
    strict = await startServer(await signInConfig({ clientIdMetadataDocuments: cimd({ allowedAddresses: [], allowedHosts: [`localhost:${documents.port}`] }) }));
  });
  afterAll(() => strict?.close());

  it('refuses a host it does not allow, without fetching', async () => {
    const before = documents.hits.get('/good.json') ?? 0;
    const answer = await redeem(strict, `${documents.url}/good.json`);
    expect(answer.status).toBe(401);
    expect(answer.body.error_description).toMatch(/not accepted from this host/);
    expect(documents.hits.get('/good.json') ?? 0).toBe(before);
  });

  it('refuses an allowed host whose name resolves to a loopback address (checked after DNS, before connecting)', async () => {
    const before = documents.hits.get('/good.json') ?? 0;
    const answer = await redeem(strict, `https://localhost:${documents.port}/good.json`);
    expect(answer.status).toBe(401);
    expect(answer.body.error_description).toMatch(/address that may not be fetched from/);
    expect(documents.hits.get('/good.json') ?? 0).toBe(before);
  });
});
