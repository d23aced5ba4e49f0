/**
 * Interop: real client libraries from npm run the authorization code flow with PKCE against
 * the server while a person signs in through the pages over HTTP — openid-client (expectedNonce,
 * expectedState, then fetchUserInfo) as a confidential web app, oauth4webapi as a public SPA.
 * Both check `iss` in the authorization response (RFC 9207) and the ID token in full.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as oauth from 'oauth4webapi';
import * as openid from 'openid-client';
import { startServer, type TestServer } from '../support/server.js';
import { alice, Browser, signInAndAuthorize, signInConfig, spaRedirect, webRedirect } from '../support/sign-in.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer(await signInConfig());
});
afterAll(() => server.close());

/** Walks the pages from an authorization URL the library built; returns the callback URL. */
function walk(url: URL): Promise<URL> {
  return signInAndAuthorize(server, new Browser(server.url), Object.fromEntries(url.searchParams));
}

describe('openid-client', () => {
  it('authorization code with PKCE, expectedNonce and expectedState, then fetchUserInfo', async () => {
    const config = await openid.discovery(new URL(server.url), 'web', 'web-secret', undefined, { execute: [openid.allowInsecureRequests] });
    const verifier = openid.randomPKCECodeVerifier();
    const state = openid.randomState();
    const nonce = openid.randomNonce();
    const url = openid.buildAuthorizationUrl(config, {
      redirect_uri: webRedirect, scope: 'openid profile email', state, nonce,
      code_challenge: await openid.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
    });
    expect(url.origin + url.pathname).toBe(`${server.url}/connect/authorize`);
    const callback = await walk(url);
    const tokens = await openid.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce, idTokenExpected: true });
    const claims = tokens.claims()!;
    expect(claims).toMatchObject({ iss: server.url, sub: alice.subjectId, aud: 'web', nonce, name: 'Alice Smith', email: 'alice@example.com' });
    const userinfo = await openid.fetchUserInfo(config, tokens.access_token, claims.sub);
    expect(userinfo).toEqual({ sub: alice.subjectId, acr: 'pwd', amr: ['pwd'], name: 'Alice Smith', email: 'alice@example.com' });
  });

  it('refuses a callback whose state is not the expected one', async () => {
    const config = await openid.discovery(new URL(server.url), 'web', 'web-secret', undefined, { execute: [openid.allowInsecureRequests] });
    const verifier = openid.randomPKCECodeVerifier();
    const url = openid.buildAuthorizationUrl(config, {
      redirect_uri: webRedirect, scope: 'openid', state: 'the-real-state',
      code_challenge: await openid.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
    });
    const callback = await walk(url);
    await expect(openid.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: 'another-state' })).rejects.toMatchObject({ cause: { message: expect.stringMatching(/state/) } });
  });
});

describe('oauth4webapi', () => {
  it('a public SPA: PKCE, consent, iss checked, ID token with nonce', async () => {
    const insecure = { [oauth.allowInsecureRequests]: true };
    const issuer = new URL(server.url);
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure));
    const client: oauth.Client = { client_id: 'spa' };
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const nonce = oauth.generateRandomNonce();
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams({
      client_id: 'spa', redirect_uri: spaRedirect, response_type: 'code', scope: 'openid profile', state, nonce,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
    }).toString();
    const callback = await walk(url);
    const params = oauth.validateAuthResponse(as, client, callback, state);
    const response = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, spaRedirect, verifier, insecure);
    const result = await oauth.processAuthorizationCodeResponse(as, client, response, { expectedNonce: nonce, requireIdToken: true });
    expect(oauth.getValidatedIdTokenClaims(result)).toMatchObject({ sub: alice.subjectId, aud: 'spa', nonce, name: 'Alice Smith' });
  });
});
