/**
 * ID tokens signed with the algorithm a client registered (`allowedIdentityTokenSigningAlgorithms`,
 * OIDC Registration's `id_token_signed_response_alg`) among `signing.idTokenAlgorithms`, RS256
 * when it named none (OIDC Core §3.1.3.7): discovery and JWKS list them, `at_hash` uses the
 * algorithm's hash (Core §3.1.3.6), refreshes keep the algorithm, openid-client and oauth4webapi
 * accept the tokens, and RP-Initiated Logout takes such a token as `id_token_hint`.
 */
import { createHash } from 'node:crypto';
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import * as oauth from 'oauth4webapi';
import * as openid from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postForm, startServer, type TestServer } from '../support/server.js';
import { Browser, redeemWeb, signInAndAuthorize, signInClients, signInConfig, webRedirect, webRequest } from '../support/sign-in.js';

const web = signInClients.find((c) => c.clientId === 'web')!;
const clientsByAlg = { ES256: 'web-es256', EdDSA: 'web-eddsa', PS384: 'web-ps384' } as const;

let server: TestServer;
beforeAll(async () => {
  server = await startServer(await signInConfig({
    signing: { idTokenAlgorithms: ['RS256', 'ES256', 'EdDSA', 'PS384'] },
    clients: [
      ...signInClients,
      ...Object.entries(clientsByAlg).map(([alg, clientId]) => ({ ...web, clientId, allowedIdentityTokenSigningAlgorithms: [alg as 'ES256'] })),
    ],
  }));
});
afterAll(() => server.close());

const basicOf = (clientId: string) => `Basic ${Buffer.from(`${clientId}:web-secret`).toString('base64')}`;

/** Signs alice in for `clientId` and redeems the code as that client. */
async function tokensFor(clientId: string): Promise<Record<string, unknown>> {
  const { params, verifier } = webRequest({ scope: 'openid profile api1.read offline_access' }, clientId);
  const location = await signInAndAuthorize(server, new Browser(server.url), params);
  const code = location.searchParams.get('code')!;
  const res = clientId === 'web'
    ? await redeemWeb(server, code, verifier)
    : await postForm(`${server.url}/connect/token`, { grant_type: 'authorization_code', code, redirect_uri: webRedirect, code_verifier: verifier }, { authorization: basicOf(clientId) });
  expect(res.status).toBe(200);
  return res.body;
}

/** OIDC Core §3.1.3.6, with Ed25519's SHA-512 (OpenID Connect Token Hash Algorithms 1.0). */
function expectedAtHash(accessToken: string, hash: string): string {
  const digest = createHash(hash).update(accessToken).digest();
  return digest.subarray(0, digest.length / 2).toString('base64url');
}

async function jwks() {
  const res = await fetch(`${server.url}/.well-known/openid-configuration/jwks`);
  return (await res.json()) as JSONWebKeySet;
}

describe('ID token signing algorithms', () => {
  it('discovery lists signing.idTokenAlgorithms, and the JWKS holds a key for each', async () => {
    const discovery = (await (await fetch(`${server.url}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    expect(discovery.id_token_signing_alg_values_supported).toEqual(['RS256', 'ES256', 'EdDSA', 'PS384']);
    const algs = (await jwks()).keys.map((k) => k.alg);
    for (const alg of ['RS256', 'ES256', 'EdDSA', 'PS384']) expect(algs).toContain(alg);
  });

  it.each([
    ['web', 'RS256', 'sha256'],
    ['web-es256', 'ES256', 'sha256'],
    ['web-eddsa', 'EdDSA', 'sha512'],
    ['web-ps384', 'PS384', 'sha384'],
  ])('%s gets %s ID tokens with at_hash over %s, from the code and from each refresh', async (clientId, alg, hash) => {
    const keys = createLocalJWKSet(await jwks());
    const tokens = await tokensFor(clientId);
    const refreshed = await postForm(`${server.url}/connect/token`, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token as string }, { authorization: basicOf(clientId) });
    expect(refreshed.status).toBe(200);
    for (const { id_token: idToken, access_token: accessToken } of [tokens, refreshed.body]) {
      expect(decodeProtectedHeader(idToken as string)).toMatchObject({ alg, typ: 'JWT' });
      const { payload } = await jwtVerify(idToken as string, keys, { issuer: server.url, audience: clientId, algorithms: [alg] });
      expect(payload.at_hash).toBe(expectedAtHash(accessToken as string, hash));
    }
  });

  it('openid-client, registered with id_token_signed_response_alg ES256, checks and accepts the code flow and refresh ID tokens', async () => {
    const config = await openid.discovery(new URL(server.url), 'web-es256', { client_secret: 'web-secret', id_token_signed_response_alg: 'ES256' }, undefined, { execute: [openid.allowInsecureRequests] });
    const verifier = openid.randomPKCECodeVerifier();
    const nonce = openid.randomNonce();
    const url = openid.buildAuthorizationUrl(config, {
      redirect_uri: webRedirect, scope: 'openid profile offline_access', nonce,
      code_challenge: await openid.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
    });
    const callback = await signInAndAuthorize(server, new Browser(server.url), Object.fromEntries(url.searchParams));
    const tokens = await openid.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedNonce: nonce, idTokenExpected: true });
    expect(tokens.claims()).toMatchObject({ aud: 'web-es256', nonce, name: 'Alice Smith' });
    const refreshed = await openid.refreshTokenGrant(config, tokens.refresh_token!);
    expect(decodeProtectedHeader(refreshed.id_token!).alg).toBe('ES256');
    expect(refreshed.claims()).toMatchObject({ aud: 'web-es256', sub: tokens.claims()!.sub });

    // The check is real: registered as expecting RS256, the same library refuses the ES256 token.
    const expectsRs256 = await openid.discovery(new URL(server.url), 'web-es256', { client_secret: 'web-secret', id_token_signed_response_alg: 'RS256' }, undefined, { execute: [openid.allowInsecureRequests] });
    await expect(openid.refreshTokenGrant(expectsRs256, refreshed.refresh_token!)).rejects.toMatchObject({ cause: { message: expect.stringMatching(/alg/) } });
  });

  it('oauth4webapi, registered with id_token_signed_response_alg EdDSA, checks and accepts the ID token', async () => {
    const insecure = { [oauth.allowInsecureRequests]: true };
    const issuer = new URL(server.url);
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure));
    const client: oauth.Client = { client_id: 'web-eddsa', id_token_signed_response_alg: 'EdDSA' };
    const verifier = oauth.generateRandomCodeVerifier();
    const nonce = oauth.generateRandomNonce();
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams({
      client_id: 'web-eddsa', redirect_uri: webRedirect, response_type: 'code', scope: 'openid profile', nonce,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
    }).toString();
    const callback = await signInAndAuthorize(server, new Browser(server.url), Object.fromEntries(url.searchParams));
    const params = oauth.validateAuthResponse(as, client, callback, oauth.skipStateCheck);
    const response = await oauth.authorizationCodeGrantRequest(as, client, oauth.ClientSecretBasic('web-secret'), params, webRedirect, verifier, insecure);
    const result = await oauth.processAuthorizationCodeResponse(as, client, response, { expectedNonce: nonce, requireIdToken: true });
    expect(oauth.getValidatedIdTokenClaims(result)).toMatchObject({ aud: 'web-eddsa', nonce, name: 'Alice Smith' });
    expect(decodeProtectedHeader(result.id_token!).alg).toBe('EdDSA');
  });

  it('an ES256 ID token is an id_token_hint at the end-session endpoint', async () => {
    const browser = new Browser(server.url);
    const { params, verifier } = webRequest({}, 'web-es256');
    const location = await signInAndAuthorize(server, browser, params);
    const tokens = await postForm(`${server.url}/connect/token`, { grant_type: 'authorization_code', code: location.searchParams.get('code')!, redirect_uri: webRedirect, code_verifier: verifier }, { authorization: basicOf('web-es256') });
    const idToken = tokens.body.id_token as string;
    expect(decodeJwt(idToken).aud).toBe('web-es256');
    const res = await browser.get(`/connect/endsession?${new URLSearchParams({ id_token_hint: idToken, post_logout_redirect_uri: 'https://web.example.com/signed-out', state: 'bye' })}`);
    // With a hint the session ends at once; without one that verifies, the user would see a confirmation page.
    expect(res.status).toBe(303);
    expect(res.location!.href).toBe('https://web.example.com/signed-out?state=bye');
  });
});
