/**
 * POST /connect/deviceauthorization (RFC 8628 §3.1–3.2; spec §4.3): response fields and
 * defaults, user codes, client authentication, grant type and scope checks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import { randomUUID } from 'node:crypto';
import { basic, startServer, type TestServer } from '../support/server.js';
import { codesFor, deviceConfig, deviceGrantType, PageClient, requestCodes } from '../device/helpers.js';

let server: TestServer;
let signingKey: Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];

beforeAll(async () => {
  const pair = await generateKeyPair('ES256');
  signingKey = pair.privateKey;
  const base = await deviceConfig();
  server = await startServer({
    ...base,
    clients: [
      ...base.clients!,
      {
        clientId: 'jwt-device', clientSecrets: [{ type: 'JsonWebKey', value: JSON.stringify(await exportJWK(pair.publicKey)) }],
        allowedGrantTypes: [deviceGrantType], allowedScopes: ['api1.read'],
      },
    ],
  });
});
afterAll(() => server.close());

const base20Code = /^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/;

describe('device authorization response', () => {
  it('answers with every RFC 8628 §3.2 field, defaults 300 s and 5 s, and is not cacheable', async () => {
    const res = await requestCodes(server, { client_id: 'tv', scope: 'openid api1.read' });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toEqual({
      device_code: expect.any(String),
      user_code: expect.stringMatching(base20Code),
      verification_uri: `${server.url}/device`,
      verification_uri_complete: `${server.url}/device?user_code=${res.body.user_code as string}`,
      expires_in: 300,
      interval: 5,
    });
    // At least 256 bits of randomness: 32 bytes, base64url.
    expect(Buffer.from(res.body.device_code as string, 'base64url').length).toBeGreaterThanOrEqual(32);
  });

  it('uses the client’s deviceCodeLifetime and pollingInterval', async () => {
    const res = await requestCodes(server, { client_id: 'cli' }, { authorization: basic('cli', 'cli-secret') });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ expires_in: 600, interval: 2 });
  });

  it('gives fresh codes on every request', async () => {
    const [a, b] = await Promise.all([codesFor(server), codesFor(server)]);
    expect(a.device_code).not.toBe(b.device_code);
    expect(a.user_code).not.toBe(b.user_code);
  });

  it('keeps the device code only hashed in the store', async () => {
    const codes = await codesFor(server);
    const record = await server.app.store.get(codes.device_code);
    expect(record).toMatchObject({ type: 'device_code', clientId: 'tv' });
    expect(record!.data).not.toContain(codes.device_code);
  });

  it('is listed in discovery with the grant type', async () => {
    const doc = (await (await fetch(`${server.url}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    expect(doc.device_authorization_endpoint).toBe(`${server.url}/connect/deviceauthorization`);
    expect(doc.grant_types_supported).toContain(deviceGrantType);
  });
});

describe('scopes', () => {
  // Issue 6: "scope (optional ...; when omitted, all of the client's allowed scopes)".
  it('asks for every scope the client is allowed, identity scopes included, when scope is omitted', async () => {
    const codes = await codesFor(server, { client_id: 'tv' });
    const page = new PageClient(server.url);
    const entry = await page.get(codes.verification_uri_complete);
    const signIn = await page.submit(entry, { user_code: codes.user_code });
    const consent = await page.submit(signIn, { username: 'alice', password: 'alice-password-1' });
    const listed = [...consent.html.matchAll(/<span class="scope-name">([^<]+)<\/span>/g)].map(([, name]) => name);
    expect(listed).toEqual(['openid', 'profile', 'email', 'api1.read', 'api1.write']);
    expect(consent.html).not.toContain('<span class="scope-name">offline_access</span>');
  });

  it('rejects a scope the client is not allowed: invalid_scope', async () => {
    const res = await requestCodes(server, { client_id: 'cli', scope: 'api1.write' }, { authorization: basic('cli', 'cli-secret') });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_scope', error_description: 'The client is not allowed a requested scope.' });
  });

  it('rejects offline_access for a client without allowOfflineAccess', async () => {
    const res = await requestCodes(server, { client_id: 'cli', scope: 'api1.read offline_access' }, { authorization: basic('cli', 'cli-secret') });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_scope');
  });
});

describe('client authentication', () => {
  it('lets a public client in with client_id alone', async () => {
    expect((await requestCodes(server, { client_id: 'tv' })).status).toBe(200);
  });

  it('accepts a confidential client’s secret in the Basic header', async () => {
    expect((await requestCodes(server, {}, { authorization: basic('cli', 'cli-secret') })).status).toBe(200);
  });

  it('accepts a confidential client’s secret in the body', async () => {
    expect((await requestCodes(server, { client_id: 'cli', client_secret: 'cli-secret' })).status).toBe(200);
  });

  it('accepts private_key_jwt with the issuer as audience', async () => {
    const assertion = await new SignJWT({ jti: randomUUID() })
      .setProtectedHeader({ alg: 'ES256' })
      .setIssuer('jwt-device').setSubject('jwt-device').setAudience(server.url)
      .setIssuedAt().setExpirationTime('1m')
      .sign(signingKey);
    const res = await requestCodes(server, {
      client_id: 'jwt-device', client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer', client_assertion: assertion,
    });
    expect(res.status).toBe(200);
    expect(res.body.user_code).toMatch(base20Code);
  });

  it('rejects a confidential client without its secret: invalid_client', async () => {
    const res = await requestCodes(server, { client_id: 'cli' });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'invalid_client', error_description: 'Client authentication failed.' });
  });

  it('rejects a wrong secret and an unknown client alike', async () => {
    const wrong = await requestCodes(server, {}, { authorization: basic('cli', 'not-the-secret') });
    const unknown = await requestCodes(server, { client_id: 'nobody' });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toBe('Basic realm="svc"');
    expect(unknown.status).toBe(401);
    expect(wrong.body).toEqual(unknown.body);
  });

  it('requires client_id', async () => {
    const res = await requestCodes(server, {});
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('invalid_client');
  });
});

describe('grant type', () => {
  it('refuses a client that may not use the device grant: unauthorized_client', async () => {
    const res = await requestCodes(server, {}, { authorization: basic('m2m', 'm2m-secret') });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'unauthorized_client', error_description: 'The client is not allowed to use this grant type.' });
  });
});

describe('request format', () => {
  it('rejects a parameter sent twice', async () => {
    const res = await requestCodes(server, 'client_id=tv&scope=api1.read&scope=api1.write');
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_request');
  });
});
