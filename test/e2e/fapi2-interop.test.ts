/**
 * The FAPI 2.0 profile (issue 37) with oauth4webapi, itself a certified FAPI 2.0 client, while
 * a person signs in through the pages: the whole flow under Security Profile and Message Signing
 * with DPoP (PAR with a signed request object, private_key_jwt, a DPoP proof at PAR and at the
 * token endpoint, JARM, code redemption, UserInfo with the DPoP-bound token). Then every rule
 * that is a request, broken once: the answer the client gets. openid-client runs the flow too
 * (JAR pushed, DPoP, JARM). The same flow over mutual TLS is in `fapi2-mutual-tls.test.ts`.
 */
import { webcrypto } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as oauth from 'oauth4webapi';
import * as openid from 'openid-client';
import { decodeJwt, SignJWT } from 'jose';
import { postForm, startServer, type TestServer } from '../support/server.js';
import { alice, authorizeUrl, Browser, signInAndAuthorize, signInConfig } from '../support/sign-in.js';

const redirectUri = 'https://bank-app.example.com/callback';
const insecure = { [oauth.allowInsecureRequests]: true };

let server: TestServer;
let key: oauth.PrivateKey;
let rsaKey: oauth.PrivateKey;
let as: oauth.AuthorizationServer;
const client: oauth.Client = { client_id: 'bank-app', id_token_signed_response_alg: 'ES256', authorization_signed_response_alg: 'ES256' };

const publicJwk = async (pair: webcrypto.CryptoKeyPair, kid: string): Promise<string> => {
  const { kty, crv, x, y, n, e } = await webcrypto.subtle.exportKey('jwk', pair.publicKey as webcrypto.CryptoKey);
  return JSON.stringify({ kty, crv, x, y, n, e, kid });
};

beforeAll(async () => {
  const ec = await oauth.generateKeyPair('ES256', { extractable: true });
  const rsa = await oauth.generateKeyPair('RS256', { extractable: true });
  key = { key: ec.privateKey, kid: 'ec-1' };
  rsaKey = { key: rsa.privateKey, kid: 'rsa-1' };
  server = await startServer(await signInConfig({
    signing: { idTokenAlgorithms: ['RS256', 'ES256'] },
    // The plugin's lenient audience rule, which the profile overrides for its clients (SP §5.3.2.1).
    plugins: { 'private-key-jwt': { audience: 'compat' } },
    clients: [{
      clientId: 'bank-app', clientName: 'Bank app', fapi2: 'message-signing',
      // An RSA key too, so that an RS256 signature would verify but for the profile (SP §5.4).
      clientSecrets: [{ type: 'JsonWebKey', value: await publicJwk(ec, 'ec-1') }, { type: 'JsonWebKey', value: await publicJwk(rsa, 'rsa-1') }],
      tokenEndpointAuthMethods: ['private_key_jwt'], allowedGrantTypes: ['authorization_code', 'client_credentials', 'refresh_token'], allowedScopes: ['openid', 'profile', 'api1.read'], allowOfflineAccess: true,
      redirectUris: [redirectUri], authorizationCodeLifetime: 60,
      allowedIdentityTokenSigningAlgorithms: ['ES256'], authorizationSignedResponseAlg: 'ES256',
    }],
  }));
  const issuer = new URL(server.url);
  as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure));
});
afterAll(() => server?.close());

async function requestObject(params: Record<string, string>, signingKey = key): Promise<string> {
  return oauth.issueRequestObject(as, client, { redirect_uri: redirectUri, response_type: 'code', scope: 'openid profile', ...params }, signingKey);
}

describe('oauth4webapi runs the FAPI 2.0 flow (Message Signing, DPoP)', () => {
  it('PAR with a signed request object and DPoP, JARM, code redemption with DPoP, UserInfo with the bound token; refreshes keep the refresh token', async () => {
    const dpop = oauth.DPoP(client, await oauth.generateKeyPair('ES256'));
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const request = await requestObject({
      scope: 'openid profile offline_access', state, nonce: 'n-1', response_mode: 'jwt', code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
    });
    const pushed = await oauth.pushedAuthorizationRequest(as, client, oauth.PrivateKeyJwt(key), { request }, { ...insecure, DPoP: dpop });
    const { request_uri: requestUri } = await oauth.processPushedAuthorizationResponse(as, client, pushed);

    const browser = new Browser(server.url);
    const form = await browser.get(authorizeUrl(server, { client_id: 'bank-app', request_uri: requestUri }));
    const page = await browser.submit(form, { username: alice.username, password: alice.password });
    expect(page.status).toBe(303);
    expect([...page.location!.searchParams.keys()]).toEqual(['response']);
    const params = await oauth.validateJwtAuthResponse(as, client, page.location!, state, insecure);
    expect(params.get('iss')).toBe(server.url);

    const redeemed = await oauth.authorizationCodeGrantRequest(as, client, oauth.PrivateKeyJwt(key), params, redirectUri, verifier, { ...insecure, DPoP: dpop });
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, redeemed, { expectedNonce: 'n-1', requireIdToken: true });
    expect(tokens.token_type).toBe('dpop');
    expect(decodeJwt(tokens.access_token).cnf).toEqual({ jkt: expect.stringMatching(/^[\w-]{43}$/) });
    expect(oauth.getValidatedIdTokenClaims(tokens)).toMatchObject({ sub: alice.subjectId, aud: 'bank-app' });

    const userInfo = await oauth.userInfoRequest(as, client, tokens.access_token, { ...insecure, DPoP: dpop });
    expect(await oauth.processUserInfoResponse(as, client, alice.subjectId, userInfo)).toMatchObject({ sub: alice.subjectId, name: 'Alice Smith' });

    // SP §5.3.2.1: no rotation. A refresh answers no new refresh token, and the same one works
    // again: a client that lost an answer retries with it.
    const refreshToken = tokens.refresh_token!;
    expect(refreshToken).toMatch(/.+/);
    for (let round = 0; round < 2; round += 1) {
      const refreshed = await oauth.refreshTokenGrantRequest(as, client, oauth.PrivateKeyJwt(key), refreshToken, { ...insecure, DPoP: dpop });
      const again = await oauth.processRefreshTokenResponse(as, client, refreshed);
      expect(again.token_type).toBe('dpop');
      expect(again.refresh_token).toBeUndefined();
    }
  });
});

describe('openid-client runs it too', () => {
  it('JAR pushed (buildAuthorizationUrlWithJAR, then WithPAR) with DPoP, JARM (useJwtResponseMode), redemption and UserInfo with DPoP', async () => {
    const config = await openid.discovery(new URL(server.url), 'bank-app', { id_token_signed_response_alg: 'ES256', authorization_signed_response_alg: 'ES256' },
      openid.PrivateKeyJwt(key), { execute: [openid.allowInsecureRequests] });
    openid.useJwtResponseMode(config);
    const DPoP = openid.getDPoPHandle(config, await openid.randomDPoPKeyPair('ES256'));
    const verifier = openid.randomPKCECodeVerifier();
    const state = openid.randomState();
    const jar = await openid.buildAuthorizationUrlWithJAR(config, {
      redirect_uri: redirectUri, scope: 'openid profile', state, nonce: 'n-2', response_mode: 'jwt',
      code_challenge: await openid.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
    }, key);
    const url = await openid.buildAuthorizationUrlWithPAR(config, jar.searchParams, { DPoP });
    expect([...url.searchParams.keys()].sort()).toEqual(['client_id', 'request_uri']);
    const callback = await signInAndAuthorize(server, new Browser(server.url), Object.fromEntries(url.searchParams));
    const tokens = await openid.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: 'n-2', idTokenExpected: true }, undefined, { DPoP });
    expect(tokens.token_type).toBe('dpop');
    expect(await openid.fetchUserInfo(config, tokens.access_token, alice.subjectId, { DPoP })).toMatchObject({ sub: alice.subjectId });
  });
});

describe('each rule that is a request, broken: the answer', () => {
  const assertion = async (claims: Record<string, unknown>, alg: 'ES256' | 'RS256' = 'ES256'): Promise<string> =>
    new SignJWT({ jti: crypto.randomUUID(), ...claims })
      .setProtectedHeader({ alg, kid: alg === 'ES256' ? 'ec-1' : 'rsa-1' })
      .setIssuer('bank-app').setSubject('bank-app').setIssuedAt().setExpirationTime('1m')
      .sign(alg === 'ES256' ? key.key : rsaKey.key);
  const jwtBearer = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
  const clientCredentials = async (claims: Record<string, unknown>, alg: 'ES256' | 'RS256' = 'ES256', headers: Record<string, string> = {}) =>
    postForm(`${server.url}/connect/token`, { grant_type: 'client_credentials', scope: 'api1.read', client_assertion_type: jwtBearer, client_assertion: await assertion(claims, alg) }, headers);

  it('SP §5.3.2.2: an authorization request that did not come through PAR is refused at the redirect URI', async () => {
    const page = await new Browser(server.url).get(authorizeUrl(server, {
      client_id: 'bank-app', request: await requestObject({ state: 's', response_mode: 'jwt', code_challenge: 'a'.repeat(43), code_challenge_method: 'S256' }),
    }));
    expect(page.status).toBe(303);
    const refused = await oauth.validateJwtAuthResponse(as, client, page.location!, 's', insecure).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(oauth.AuthorizationResponseError);
    expect(Object.fromEntries((refused as oauth.AuthorizationResponseError).cause)).toMatchObject({
      error: 'invalid_request', error_description: 'This client must use pushed authorization requests (FAPI 2.0).',
    });
  });

  it('MS §5.3: a pushed request without a signed request object is refused', async () => {
    const response = await oauth.pushedAuthorizationRequest(as, client, oauth.PrivateKeyJwt(key), {
      redirect_uri: redirectUri, response_type: 'code', scope: 'openid', response_mode: 'jwt', code_challenge: 'a'.repeat(43), code_challenge_method: 'S256',
    }, insecure);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: 'invalid_request', error_description: 'This client must push a signed request object (FAPI 2.0 Message Signing).' });
  });

  it('MS §5.4: a request that asks for a plain (unsigned) response is refused', async () => {
    for (const mode of [undefined, 'query', 'form_post']) {
      const request = await requestObject({ state: 's', code_challenge: 'a'.repeat(43), code_challenge_method: 'S256', ...(mode ? { response_mode: mode } : {}) });
      const response = await oauth.pushedAuthorizationRequest(as, client, oauth.PrivateKeyJwt(key), { request }, insecure);
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({
        error: 'invalid_request', error_description: 'This client must ask for a signed response: response_mode jwt, query.jwt or form_post.jwt (FAPI 2.0 Message Signing).',
      });
    }
  });

  it('SP §5.4: a request object signed with RS256 (by a key the client registered) is refused', async () => {
    const request = await requestObject({ state: 's', response_mode: 'jwt', code_challenge: 'a'.repeat(43), code_challenge_method: 'S256' }, rsaKey);
    const response = await oauth.pushedAuthorizationRequest(as, client, oauth.PrivateKeyJwt(key), { request }, insecure);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: 'invalid_request_object', error_description: 'The request object\'s signing algorithm is not allowed (FAPI 2.0: PS256, ES256 or EdDSA).' });
  });

  it('SP §5.3.2.1: a token request with neither a DPoP proof nor a client certificate is refused; with a proof it gets a DPoP token', async () => {
    const bearer = await clientCredentials({ aud: server.url });
    expect(bearer.status).toBe(400);
    expect(bearer.body).toEqual({ error: 'invalid_request', error_description: 'This client\'s tokens must be sender-constrained: send a DPoP proof or a TLS client certificate (FAPI 2.0).' });
    const dpop = oauth.DPoP(client, await oauth.generateKeyPair('ES256'));
    const bound = await oauth.clientCredentialsGrantRequest(as, client, oauth.PrivateKeyJwt(key), { scope: 'api1.read' }, { ...insecure, DPoP: dpop });
    expect((await oauth.processClientCredentialsResponse(as, client, bound)).token_type).toBe('dpop');
  });

  it('SP §5.4: a DPoP proof signed with RS256 (which the service accepts from other clients) is refused, at the token endpoint and at PAR', async () => {
    const dpop = oauth.DPoP(client, await oauth.generateKeyPair('RS256'));
    const answer = await oauth.clientCredentialsGrantRequest(as, client, oauth.PrivateKeyJwt(key), { scope: 'api1.read' }, { ...insecure, DPoP: dpop });
    expect(answer.status).toBe(400);
    const refusal = { error: 'invalid_dpop_proof', error_description: 'The DPoP proof\'s signing algorithm is not allowed (FAPI 2.0: PS256, ES256 or EdDSA).' };
    expect(await answer.json()).toEqual(refusal);
    const request = await requestObject({ state: 's', response_mode: 'jwt', code_challenge: 'a'.repeat(43), code_challenge_method: 'S256' });
    const pushed = await oauth.pushedAuthorizationRequest(as, client, oauth.PrivateKeyJwt(key), { request }, { ...insecure, DPoP: dpop });
    expect(pushed.status).toBe(400);
    expect(await pushed.json()).toEqual(refusal);
  });

  it('SP §5.3.2.1: a client assertion whose aud is the token endpoint, not the issuer, fails client authentication', async () => {
    const answer = await clientCredentials({ aud: `${server.url}/connect/token` });
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual({ error: 'invalid_client', error_description: 'Client authentication failed.' });
    expect(server.logText()).toContain('FAPI 2.0 (client fapi2 message-signing)');
  });

  it('SP §5.4: a client assertion signed with RS256 (by a key the client registered) fails client authentication', async () => {
    const answer = await clientCredentials({ aud: server.url }, 'RS256');
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual({ error: 'invalid_client', error_description: 'Client authentication failed.' });
    expect(server.logText()).toContain('is not allowed under FAPI 2.0 (PS256, ES256, EdDSA, Ed25519)');
  });
});

describe('start-up', () => {
  it('a client that breaks the profile\'s rules stops start-up, each line naming the client, the field and the rule', async () => {
    const started = startServer(await signInConfig({
      fapi2: 'security',
      clients: [{
        clientId: 'legacy-bank', clientSecrets: [{ value: 'K7gNU3sdo+OL0wNhqoVWhr3g6s1xYv72ol/pe/Unols=' }], allowedGrantTypes: ['authorization_code'],
        allowedScopes: ['openid'], redirectUris: ['http://legacy-bank.example.com/cb'],
      }],
    }));
    const error = await started.then(() => undefined, (err: unknown) => err as Error);
    expect(error?.message).toContain('clients[0].tokenEndpointAuthMethods: client "legacy-bank" (FAPI 2.0 security, SP §5.3.2.1): list the client\'s authentication methods, only private_key_jwt, tls_client_auth, self_signed_tls_client_auth');
    expect(error?.message).toContain('clients[0].redirectUris: client "legacy-bank" (FAPI 2.0 security, SP §5.3.2.2): redirect URIs must be https, got "http://legacy-bank.example.com/cb"');
    expect(error?.message).toContain('clients[0].authorizationCodeLifetime: client "legacy-bank" (FAPI 2.0 security, SP §5.3.2.2)');
    expect(error?.message).toContain('clients[0].allowedIdentityTokenSigningAlgorithms: client "legacy-bank" (FAPI 2.0 security, SP §5.4)');
  });
});
