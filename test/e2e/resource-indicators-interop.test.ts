/**
 * Interop of resource indicators (RFC 8707) with real client libraries from npm: openid-client
 * and oauth4webapi send `resource` in the code flow (two APIs at the authorization endpoint,
 * one at the token endpoint), on refresh (narrowing to the other granted API; a wider one is
 * refused) and with client credentials. Each token is checked the way an API would: jose's
 * `jwtVerify` against the service's JWKS with the API's own URI as `audience`. The other API
 * refuses it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as oauth from 'oauth4webapi';
import * as openid from 'openid-client';
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import { hashSecret } from '../../src/sdk/hash.js';
import { startServer, type TestServer } from '../support/server.js';
import { alice, Browser, signInConfig, spaRedirect, webRedirect } from '../support/sign-in.js';

const billing = 'https://billing.example.com/';
const reports = 'https://reports.example.com/';

let server: TestServer;
let jwks: ReturnType<typeof createRemoteJWKSet>;
beforeAll(async () => {
  server = await startServer(await signInConfig({
    apiScopes: [{ name: 'billing.read' }, { name: 'reports.read' }],
    apiResources: [
      { name: 'billing', uri: billing, scopes: ['billing.read'] },
      { name: 'reports', uri: reports, scopes: ['reports.read'] },
    ],
    clients: [
      {
        clientId: 'web', clientSecrets: [{ value: hashSecret('web-secret') }], allowedGrantTypes: ['authorization_code', 'refresh_token'],
        allowedScopes: ['openid', 'profile', 'billing.read', 'reports.read'], allowOfflineAccess: true, redirectUris: [webRedirect],
      },
      {
        clientId: 'spa', requireClientSecret: false, allowedGrantTypes: ['authorization_code', 'refresh_token'],
        allowedScopes: ['openid', 'billing.read', 'reports.read'], allowOfflineAccess: true, redirectUris: [spaRedirect],
      },
      { clientId: 'm2m', clientSecrets: [{ value: hashSecret('m2m-secret') }], allowedGrantTypes: ['client_credentials'], allowedScopes: ['billing.read', 'reports.read'] },
    ],
  }));
  const metadata = await (await fetch(`${server.url}/.well-known/openid-configuration`)).json() as { jwks_uri: string };
  jwks = createRemoteJWKSet(new URL(metadata.jwks_uri));
});
afterAll(() => server.close());

/** What an API in front of its data does with a bearer token (RFC 9068 §4): its own URI as audience. */
async function acceptedBy(api: string, token: string): Promise<JWTPayload> {
  const { payload } = await jwtVerify(token, jwks, { issuer: server.url, audience: api, typ: 'at+jwt' });
  return payload;
}
const refusedBy = (api: string, token: string) =>
  expect(acceptedBy(api, token)).rejects.toMatchObject({ code: 'ERR_JWT_CLAIM_VALIDATION_FAILED', claim: 'aud' });

/** Walks the pages from an authorization URL as built (repeated `resource` kept); returns the callback. */
async function walk(url: URL): Promise<URL> {
  const browser = new Browser(server.url);
  let page = await browser.get(url);
  if (page.html.includes('<h1>Sign in</h1>')) page = await browser.submit(page, { username: alice.username, password: alice.password });
  if (page.html.includes('<h1>Allow access?</h1>')) page = await browser.submit(page, { decision: 'approve' });
  if (page.status !== 303 || !page.location) throw new Error(`expected a redirect, got ${page.status}:\n${page.html}`);
  return page.location;
}

const resources = (...uris: string[]): Array<[string, string]> => uris.map((u) => ['resource', u]);

describe('openid-client', () => {
  const discover = () => openid.discovery(new URL(server.url), 'web', 'web-secret', undefined, { execute: [openid.allowInsecureRequests] });

  it('code flow for two APIs, a token for one, a refresh for the other; never for an API outside the grant', async () => {
    const config = await discover();
    const verifier = openid.randomPKCECodeVerifier();
    const state = openid.randomState();
    const url = openid.buildAuthorizationUrl(config, new URLSearchParams([
      ['redirect_uri', webRedirect], ['scope', 'openid billing.read reports.read offline_access'], ['state', state],
      ['code_challenge', await openid.calculatePKCECodeChallenge(verifier)], ['code_challenge_method', 'S256'],
      ...resources(billing, reports),
    ]));
    const tokens = await openid.authorizationCodeGrant(config, await walk(url), { pkceCodeVerifier: verifier, expectedState: state }, { resource: billing });
    expect(tokens.scope).toBe('openid billing.read offline_access');
    expect(await acceptedBy(billing, tokens.access_token)).toMatchObject({ aud: billing, scope: 'openid billing.read offline_access', client_id: 'web' });
    await refusedBy(reports, tokens.access_token);

    const refreshed = await openid.refreshTokenGrant(config, tokens.refresh_token!, { resource: reports });
    expect(await acceptedBy(reports, refreshed.access_token)).toMatchObject({ aud: reports, scope: 'openid reports.read offline_access' });
    await refusedBy(billing, refreshed.access_token);

    await expect(openid.refreshTokenGrant(config, refreshed.refresh_token!, { resource: 'https://payments.example.com/' }))
      .rejects.toMatchObject({ error: 'invalid_target', status: 400 });
  });

  it('client credentials for one API', async () => {
    const config = await openid.discovery(new URL(server.url), 'm2m', 'm2m-secret', undefined, { execute: [openid.allowInsecureRequests] });
    const tokens = await openid.clientCredentialsGrant(config, { resource: reports });
    expect(tokens.scope).toBe('reports.read');
    expect(await acceptedBy(reports, tokens.access_token)).toMatchObject({ sub: 'm2m', aud: reports });
    await refusedBy(billing, tokens.access_token);
  });
});

describe('oauth4webapi', () => {
  const insecure = { [oauth.allowInsecureRequests]: true } as const;
  const discover = async () => {
    const issuer = new URL(server.url);
    return oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure));
  };

  it('a public client: code flow for two APIs, narrowed to one, refreshed for the other, refused a wider one', async () => {
    const as = await discover();
    const client: oauth.Client = { client_id: 'spa' };
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams([
      ['client_id', 'spa'], ['redirect_uri', spaRedirect], ['response_type', 'code'], ['scope', 'billing.read reports.read offline_access'], ['state', state],
      ['code_challenge', await oauth.calculatePKCECodeChallenge(verifier)], ['code_challenge_method', 'S256'],
      ...resources(billing, reports),
    ]).toString();
    const params = oauth.validateAuthResponse(as, client, await walk(url), state);
    const response = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, spaRedirect, verifier, {
      ...insecure, additionalParameters: { resource: reports },
    });
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, response);
    expect(await acceptedBy(reports, tokens.access_token)).toMatchObject({ aud: reports, scope: 'reports.read offline_access' });
    await refusedBy(billing, tokens.access_token);

    const refreshed = await oauth.processRefreshTokenResponse(as, client,
      await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, { ...insecure, additionalParameters: { resource: billing } }));
    expect(await acceptedBy(billing, refreshed.access_token)).toMatchObject({ aud: billing, scope: 'billing.read offline_access' });
    await refusedBy(reports, refreshed.access_token);

    const wider = oauth.processRefreshTokenResponse(as, client,
      await oauth.refreshTokenGrantRequest(as, client, oauth.None(), refreshed.refresh_token!, { ...insecure, additionalParameters: { resource: 'https://payments.example.com/' } }));
    await expect(wider).rejects.toMatchObject({ error: 'invalid_target', status: 400 });
  });

  it('client credentials for one API', async () => {
    const as = await discover();
    const client: oauth.Client = { client_id: 'm2m' };
    const response = await oauth.clientCredentialsGrantRequest(as, client, oauth.ClientSecretBasic('m2m-secret'), new URLSearchParams([...resources(billing)]), insecure);
    const tokens = await oauth.processClientCredentialsResponse(as, client, response);
    expect(await acceptedBy(billing, tokens.access_token)).toMatchObject({ sub: 'm2m', aud: billing, scope: 'billing.read' });
    await refusedBy(reports, tokens.access_token);
  });
});
