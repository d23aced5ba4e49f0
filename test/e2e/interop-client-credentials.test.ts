/**
 * Real OAuth client libraries from npm discover the service and get a client_credentials token
 * with Basic and with POST-body credentials; the token verifies against the JWKS with jose.
 */
import * as oauth from 'oauth4webapi';
import * as client from 'openid-client';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret } from '../../src/sdk/hash.js';
import { startServer, type TestServer } from '../support/server.js';
import { sharedSecretOnly, type TempPluginDir } from './plugin-dirs.js';

// Characters that only survive Basic authentication when both sides form-urlencode (RFC 6749 §2.3.1).
const clientId = 'interop client';
const clientSecret = 'interop-sécret:+%/=-93ab';

let pluginDir: TempPluginDir;
let server: TestServer;

beforeAll(async () => {
  pluginDir = sharedSecretOnly();
  server = await startServer({
    pluginDirs: [pluginDir.dir],
    apiScopes: [{ name: 'api1.read' }, { name: 'api1.write' }],
    apiResources: [{ name: 'api1', scopes: ['api1.read', 'api1.write'] }],
    clients: [
      {
        clientId,
        clientSecrets: [{ value: hashSecret(clientSecret) }],
        allowedGrantTypes: ['client_credentials'],
        allowedScopes: ['api1.read', 'api1.write'],
      },
    ],
  });
});

afterAll(async () => {
  await server?.close();
  pluginDir?.remove();
});

async function verify(accessToken: string, jwksUri: string | undefined, scope: string): Promise<void> {
  expect(jwksUri).toBe(`${server.url}/.well-known/openid-configuration/jwks`);
  const { payload, protectedHeader } = await jwtVerify(accessToken, createRemoteJWKSet(new URL(jwksUri!)), {
    issuer: server.url,
    audience: 'api1',
    typ: 'at+jwt',
  });
  expect(protectedHeader.typ).toBe('at+jwt');
  expect(payload).toMatchObject({ sub: clientId, client_id: clientId, scope });
}

describe('openid-client v6', () => {
  it.each([
    ['client_secret_basic', client.ClientSecretBasic],
    ['client_secret_post', client.ClientSecretPost],
  ])('discovers the service and gets a client_credentials token with %s', async (_method, auth) => {
    const config = await client.discovery(new URL(server.url), clientId, undefined, auth(clientSecret), {
      execute: [client.allowInsecureRequests],
    });
    expect(config.serverMetadata().token_endpoint).toBe(`${server.url}/connect/token`);
    const tokens = await client.clientCredentialsGrant(config, { scope: 'api1.read' });
    expect(tokens.token_type.toLowerCase()).toBe('bearer');
    expect(tokens.expires_in).toBe(3600);
    expect(tokens.scope).toBe('api1.read');
    await verify(tokens.access_token, config.serverMetadata().jwks_uri, 'api1.read');
  });

  it('surfaces a wrong Basic secret as a 401 with a Basic challenge and an invalid_client body', async () => {
    const config = await client.discovery(new URL(server.url), clientId, undefined, client.ClientSecretBasic('not-the-secret'), {
      execute: [client.allowInsecureRequests],
    });
    const err = (await client.clientCredentialsGrant(config, { scope: 'api1.read' }).catch((e: unknown) => e)) as client.WWWAuthenticateChallengeError;
    expect(err).toBeInstanceOf(client.WWWAuthenticateChallengeError);
    expect(err.status).toBe(401);
    expect(err.cause.map((c) => c.scheme)).toEqual(['basic']);
    expect(await err.response.json()).toMatchObject({ error: 'invalid_client' });
  });

  it('surfaces a wrong POST-body secret as an invalid_client response error', async () => {
    const config = await client.discovery(new URL(server.url), clientId, undefined, client.ClientSecretPost('not-the-secret'), {
      execute: [client.allowInsecureRequests],
    });
    await expect(client.clientCredentialsGrant(config, { scope: 'api1.read' })).rejects.toMatchObject({
      error: 'invalid_client',
      status: 401,
    });
  });
});

describe('oauth4webapi', () => {
  it.each([
    ['client_secret_basic', oauth.ClientSecretBasic],
    ['client_secret_post', oauth.ClientSecretPost],
  ])('discovers the service and gets a client_credentials token with %s', async (_method, auth) => {
    const issuer = new URL(server.url);
    const as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { [oauth.allowInsecureRequests]: true }),
    );
    const me: oauth.Client = { client_id: clientId };
    const response = await oauth.clientCredentialsGrantRequest(as, me, auth(clientSecret), { scope: 'api1.read api1.write' }, {
      [oauth.allowInsecureRequests]: true,
    });
    const result = await oauth.processClientCredentialsResponse(as, me, response);
    expect(result.token_type).toBe('bearer');
    expect(result.scope).toBe('api1.read api1.write');
    await verify(result.access_token, as.jwks_uri, 'api1.read api1.write');
  });
});
