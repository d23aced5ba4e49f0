/**
 * Real client libraries from npm authenticate with private_key_jwt as they ship: openid-client
 * and oauth4webapi sign their own assertions (aud = the issuer, per RFC 10070), get a
 * client_credentials token that verifies against the JWKS, and revoke a reference token.
 */
import * as oauth from 'oauth4webapi';
import * as client from 'openid-client';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret } from '../../src/sdk/hash.js';
import { basic, postForm, startServer, type TestServer } from '../support/server.js';
import { certificateOf, makeKey, publicJwk, type TestKey } from '../plugins/private-key-jwt/helpers.js';

const DAY = 86_400_000;
let server: TestServer;
let rsa: TestKey;
let ec: TestKey;
let ed: TestKey;

beforeAll(async () => {
  [rsa, ec, ed] = await Promise.all([makeKey('RSA'), makeKey('P-256'), makeKey('Ed25519')]);
  const now = Date.now();
  const edCertificate = Buffer.from(await certificateOf(ed, { notBefore: now - DAY, notAfter: now + 30 * DAY })).toString('base64');
  const clientFor = (clientId: string, type: string, value: string, extra: Record<string, unknown> = {}) => ({
    clientId,
    clientSecrets: [{ type, value }],
    allowedGrantTypes: ['client_credentials'],
    allowedScopes: ['api1.read'],
    ...extra,
  });
  server = await startServer({
    apiScopes: [{ name: 'api1.read' }],
    apiResources: [{ name: 'api1', scopes: ['api1.read'], secrets: [{ value: hashSecret('api1-secret') }] }],
    clients: [
      clientFor('rsa-jwk', 'JsonWebKey', JSON.stringify(publicJwk(rsa))),
      clientFor('ed-cert', 'X509CertificateBase64', edCertificate),
      clientFor('ec-reference', 'JsonWebKey', JSON.stringify(publicJwk(ec)), { accessTokenType: 'reference' }),
    ],
  });
});

afterAll(async () => {
  await server?.close();
});

async function verify(accessToken: string, clientId: string): Promise<void> {
  const jwks = createRemoteJWKSet(new URL(`${server.url}/.well-known/openid-configuration/jwks`));
  const { payload } = await jwtVerify(accessToken, jwks, { issuer: server.url, audience: 'api1', typ: 'at+jwt' });
  expect(payload).toMatchObject({ sub: clientId, client_id: clientId, scope: 'api1.read' });
}

const introspect = (value: string) =>
  postForm(`${server.url}/connect/introspect`, { token: value }, { authorization: basic('api1', 'api1-secret') });

describe('openid-client', () => {
  const discover = (clientId: string, key: TestKey) =>
    client.discovery(new URL(server.url), clientId, undefined, client.PrivateKeyJwt(key.pair.privateKey), {
      execute: [client.allowInsecureRequests],
    });

  it('discovers the service and gets a client_credentials token with private_key_jwt (RS256, JWK secret)', async () => {
    const config = await discover('rsa-jwk', rsa);
    expect(config.serverMetadata().token_endpoint_auth_methods_supported).toContain('private_key_jwt');
    const tokens = await client.clientCredentialsGrant(config, { scope: 'api1.read' });
    expect(tokens.token_type.toLowerCase()).toBe('bearer');
    await verify(tokens.access_token, 'rsa-jwk');
  });

  it('revokes its reference token with private_key_jwt', async () => {
    const config = await discover('ec-reference', ec);
    const tokens = await client.clientCredentialsGrant(config, { scope: 'api1.read' });
    expect((await introspect(tokens.access_token)).body).toMatchObject({ active: true, client_id: 'ec-reference' });
    await client.tokenRevocation(config, tokens.access_token);
    expect((await introspect(tokens.access_token)).body).toStrictEqual({ active: false });
  });

  it('is refused with invalid_client when it signs with a key the service does not hold', async () => {
    const config = await discover('rsa-jwk', await makeKey('RSA'));
    await expect(client.clientCredentialsGrant(config, { scope: 'api1.read' })).rejects.toMatchObject({ error: 'invalid_client', status: 401 });
  });
});

describe('oauth4webapi', () => {
  it('gets a client_credentials token with private_key_jwt (EdDSA, certificate secret)', async () => {
    const issuer = new URL(server.url);
    const options = { [oauth.allowInsecureRequests]: true };
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, options));
    const me: oauth.Client = { client_id: 'ed-cert' };
    const response = await oauth.clientCredentialsGrantRequest(as, me, oauth.PrivateKeyJwt(ed.pair.privateKey), { scope: 'api1.read' }, options);
    const result = await oauth.processClientCredentialsResponse(as, me, response);
    expect(result.token_type).toBe('bearer');
    await verify(result.access_token, 'ed-cert');
  });
});
