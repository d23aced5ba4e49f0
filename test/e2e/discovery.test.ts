/**
 * GET /.well-known/openid-configuration and its JWKS: what a client library reads to find the
 * token endpoint and verify tokens. The document reflects the loaded plugins.
 */
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserConfig } from '../../src/config/schema.js';
import { hashSecret } from '../../src/sdk/hash.js';
import { basic, startServer, type TestServer } from '../support/server.js';
import { fixturePluginDir, sharedSecretOnly, type TempPluginDir } from './plugin-dirs.js';

const config: UserConfig = {
  apiScopes: [{ name: 'api1.read' }, { name: 'api1.write' }, { name: 'backend.read' }],
  apiResources: [
    { name: 'api1', scopes: ['api1.read', 'api1.write'] },
    { name: 'backend', scopes: ['backend.read'] },
  ],
  clients: [
    {
      clientId: 'm2m',
      clientSecrets: [{ value: hashSecret('discovery-secret-81f2') }],
      allowedGrantTypes: ['client_credentials'],
      allowedScopes: ['api1.read'],
    },
  ],
};
const privateMembers = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

let pluginDir: TempPluginDir;
let es: TestServer;
let rs: TestServer;

beforeAll(async () => {
  pluginDir = sharedSecretOnly();
  [es, rs] = await Promise.all([
    startServer({ ...config, pluginDirs: [pluginDir.dir, fixturePluginDir('valid')] }),
    startServer({ ...config, pluginDirs: [pluginDir.dir], signing: { accessTokenAlgorithm: 'RS256' } }),
  ]);
});

afterAll(async () => {
  await Promise.all([es?.close(), rs?.close()]);
  pluginDir?.remove();
});

async function getJson(url: string): Promise<{ status: number; contentType: string | null; body: Record<string, unknown> }> {
  const res = await fetch(url);
  return { status: res.status, contentType: res.headers.get('content-type'), body: (await res.json()) as Record<string, unknown> };
}

async function issue(server: TestServer): Promise<string> {
  const res = await fetch(`${server.url}/connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic('m2m', 'discovery-secret-81f2') },
    body: 'grant_type=client_credentials',
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { access_token: string }).access_token;
}

describe('discovery document', () => {
  it('names the issuer and the token and JWKS endpoints under it', async () => {
    const { status, contentType, body } = await getJson(`${es.url}/.well-known/openid-configuration`);
    expect(status).toBe(200);
    expect(contentType).toMatch(/^application\/json/);
    expect(body.issuer).toBe(es.url);
    expect(body.token_endpoint).toBe(`${es.url}/connect/token`);
    expect(body.jwks_uri).toBe(`${es.url}/.well-known/openid-configuration/jwks`);
  });

  it('lists the standard grants and the grants of plugin folders', async () => {
    const { body } = await getJson(`${es.url}/.well-known/openid-configuration`);
    expect(body.grant_types_supported).toEqual(expect.arrayContaining(['client_credentials', 'urn:test:magic-word']));
    const { body: plain } = await getJson(`${rs.url}/.well-known/openid-configuration`);
    expect(plain.grant_types_supported).toContain('client_credentials');
    expect(plain.grant_types_supported).not.toContain('urn:test:magic-word');
  });

  it('lists exactly the authentication methods of the loaded secret parsers', async () => {
    const { body } = await getJson(`${es.url}/.well-known/openid-configuration`);
    expect(body.token_endpoint_auth_methods_supported).toEqual(['client_secret_basic', 'client_secret_post']);
  });

  it('lists the configured API scopes', async () => {
    const { body } = await getJson(`${es.url}/.well-known/openid-configuration`);
    expect(body.scopes_supported).toEqual(['api1.read', 'api1.write', 'backend.read']);
  });

  it('is also served as RFC 8414 authorization server metadata', async () => {
    const oidc = await getJson(`${es.url}/.well-known/openid-configuration`);
    const oauth = await getJson(`${es.url}/.well-known/oauth-authorization-server`);
    expect(oauth.status).toBe(200);
    expect(oauth.body).toEqual(oidc.body);
  });
});

describe('JWKS', () => {
  it('publishes public keys only, each with kid, alg and use', async () => {
    for (const server of [es, rs]) {
      const { status, contentType, body } = await getJson(`${server.url}/.well-known/openid-configuration/jwks`);
      expect(status).toBe(200);
      expect(contentType).toMatch(/^application\/jwk-set\+json/);
      const keys = body.keys as JWK[];
      expect(keys.length).toBeGreaterThan(0);
      for (const key of keys) {
        expect(key).toMatchObject({ kid: expect.any(String), alg: expect.any(String), use: 'sig' });
        for (const member of privateMembers) expect(key, `${key.kid} must not publish "${member}"`).not.toHaveProperty(member);
      }
      expect(new Set(keys.map((k) => k.kid)).size).toBe(keys.length);
    }
  });

  it('publishes an EC P-256 key for ES256 and an RSA key for RS256', async () => {
    const { body } = await getJson(`${es.url}/.well-known/openid-configuration/jwks`);
    const keys = body.keys as JWK[];
    expect(keys.find((k) => k.alg === 'ES256')).toMatchObject({ kty: 'EC', crv: 'P-256', x: expect.any(String), y: expect.any(String) });
    expect(keys.find((k) => k.alg === 'RS256')).toMatchObject({ kty: 'RSA', n: expect.any(String), e: 'AQAB' });
  });
});

describe('access token signing algorithm', () => {
  it('signs with ES256 by default, with a key the JWKS publishes', async () => {
    const token = await issue(es);
    const header = decodeProtectedHeader(token);
    expect(header).toMatchObject({ alg: 'ES256', typ: 'at+jwt' });
    const { body } = await getJson(`${es.url}/.well-known/openid-configuration/jwks`);
    expect((body.keys as JWK[]).find((k) => k.kid === header.kid)).toMatchObject({ alg: 'ES256', kty: 'EC' });
    const { payload } = await jwtVerify(token, createRemoteJWKSet(new URL(`${es.url}/.well-known/openid-configuration/jwks`)), {
      issuer: es.url,
      audience: 'api1',
      algorithms: ['ES256'],
    });
    expect(payload.sub).toBe('m2m');
  });

  it("signs with RS256 when signing.accessTokenAlgorithm is 'RS256'", async () => {
    const token = await issue(rs);
    const header = decodeProtectedHeader(token);
    expect(header).toMatchObject({ alg: 'RS256', typ: 'at+jwt' });
    const { body } = await getJson(`${rs.url}/.well-known/openid-configuration/jwks`);
    expect((body.keys as JWK[]).find((k) => k.kid === header.kid)).toMatchObject({ alg: 'RS256', kty: 'RSA' });
    const { payload } = await jwtVerify(token, createRemoteJWKSet(new URL(`${rs.url}/.well-known/openid-configuration/jwks`)), {
      issuer: rs.url,
      audience: 'api1',
      algorithms: ['RS256'],
    });
    expect(payload.sub).toBe('m2m');
  });

  it("does not verify against another server's keys", async () => {
    const token = await issue(es);
    await expect(
      jwtVerify(token, createRemoteJWKSet(new URL(`${rs.url}/.well-known/openid-configuration/jwks`)), { issuer: es.url }),
    ).rejects.toMatchObject({ code: 'ERR_JWKS_NO_MATCHING_KEY' });
  });
});
