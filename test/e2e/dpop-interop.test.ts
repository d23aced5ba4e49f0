/**
 * Interop (issue 17): real DPoP clients from npm — oauth4webapi's `DPoP()` handle and
 * openid-client's `getDPoPHandle()` — get DPoP-bound tokens with client_credentials, refresh and
 * authorization_code (a person signing in through the pages), and call UserInfo with them; codes
 * bound to the key through a pushed request or `dpop_jkt` (RFC 9449 §10); with server nonces on,
 * both libraries follow `use_dpop_nonce` and the `DPoP-Nonce` header.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as oauth from 'oauth4webapi';
import * as openid from 'openid-client';
import { calculateJwkThumbprint, decodeJwt, exportJWK } from 'jose';
import { startServer, type TestServer } from '../support/server.js';
import { alice, Browser, signInAndAuthorize, signInClients, signInConfig, spaRedirect, webRedirect } from '../support/sign-in.js';

const publicOffline = {
  clientId: 'spa-offline', requireClientSecret: false, allowedGrantTypes: ['authorization_code', 'refresh_token'],
  allowedScopes: ['openid', 'profile', 'api1.read'], allowOfflineAccess: true, redirectUris: [spaRedirect],
};

const insecure = { [oauth.allowInsecureRequests]: true };

async function thumbprint(keyPair: oauth.CryptoKeyPair): Promise<string> {
  return calculateJwkThumbprint(await exportJWK(keyPair.publicKey), 'sha256');
}

describe.each([false, true])('with dpop.requireNonce %s', (requireNonce) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer(await signInConfig({ clients: [...signInClients, publicOffline], dpop: { requireNonce } }));
  });
  afterAll(() => server?.close());

  const walk = (url: URL): Promise<URL> => signInAndAuthorize(server, new Browser(server.url), Object.fromEntries(url.searchParams));

  describe('openid-client', () => {
    const discover = (clientId: string, secret?: string) =>
      openid.discovery(new URL(server.url), clientId, secret, secret === undefined ? openid.None() : undefined, { execute: [openid.allowInsecureRequests] });

    it('client_credentials: a DPoP token bound to the handle key', async () => {
      const config = await discover('m2m', 'm2m-secret');
      expect(config.serverMetadata().dpop_signing_alg_values_supported).toEqual(['ES256', 'PS256', 'RS256', 'EdDSA', 'Ed25519']);
      const keyPair = await openid.randomDPoPKeyPair('ES256');
      const tokens = await openid.clientCredentialsGrant(config, { scope: 'api1.read' }, { DPoP: openid.getDPoPHandle(config, keyPair) });
      expect(tokens.token_type).toBe('dpop');
      expect(decodeJwt(tokens.access_token).cnf).toEqual({ jkt: await thumbprint(keyPair) });
    });

    it('authorization_code, then UserInfo and refresh with the same key', async () => {
      const config = await discover('web', 'web-secret');
      const keyPair = await openid.randomDPoPKeyPair('ES256');
      const DPoP = openid.getDPoPHandle(config, keyPair);
      const verifier = openid.randomPKCECodeVerifier();
      const url = openid.buildAuthorizationUrl(config, {
        redirect_uri: webRedirect, scope: 'openid profile offline_access',
        code_challenge: await openid.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
      });
      const tokens = await openid.authorizationCodeGrant(config, await walk(url), { pkceCodeVerifier: verifier }, undefined, { DPoP });
      expect(tokens.token_type).toBe('dpop');
      expect(decodeJwt(tokens.access_token).cnf).toEqual({ jkt: await thumbprint(keyPair) });
      expect(await openid.fetchUserInfo(config, tokens.access_token, alice.subjectId, { DPoP })).toEqual({ sub: alice.subjectId, acr: 'pwd', amr: ['pwd'], name: 'Alice Smith' });
      const refreshed = await openid.refreshTokenGrant(config, tokens.refresh_token!, undefined, { DPoP });
      expect(refreshed.token_type).toBe('dpop');
      expect(decodeJwt(refreshed.access_token).cnf).toEqual({ jkt: await thumbprint(keyPair) });
    });

    it('PAR with the DPoP handle binds the code to its key (RFC 9449 §10.1): another key cannot redeem it, the handle can', async () => {
      const config = await discover('web', 'web-secret');
      const DPoP = openid.getDPoPHandle(config, await openid.randomDPoPKeyPair('ES256'));
      const verifier = openid.randomPKCECodeVerifier();
      const url = await openid.buildAuthorizationUrlWithPAR(config, {
        redirect_uri: webRedirect, scope: 'openid profile',
        code_challenge: await openid.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
      }, { DPoP });
      const callback = await walk(url);
      const otherKey = openid.getDPoPHandle(config, await openid.randomDPoPKeyPair('ES256'));
      await expect(openid.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier }, undefined, { DPoP: otherKey })).rejects.toMatchObject({ error: 'invalid_grant' });
      const tokens = await openid.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier }, undefined, { DPoP });
      expect(tokens.token_type).toBe('dpop');
    });

    it('dpop_jkt from the handle on the front channel binds the code (RFC 9449 §10)', async () => {
      const config = await discover('web', 'web-secret');
      const DPoP = openid.getDPoPHandle(config, await openid.randomDPoPKeyPair('ES256'));
      const verifier = openid.randomPKCECodeVerifier();
      const url = openid.buildAuthorizationUrl(config, {
        redirect_uri: webRedirect, scope: 'openid profile', dpop_jkt: await DPoP.calculateThumbprint(),
        code_challenge: await openid.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
      });
      const callback = await walk(url);
      await expect(openid.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier })).rejects.toMatchObject({ error: 'invalid_grant' });
      const tokens = await openid.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier }, undefined, { DPoP });
      expect(tokens.token_type).toBe('dpop');
    });

    it('a public client refresh token is bound: refreshing with another key is invalid_grant', async () => {
      const config = await discover('spa-offline');
      const DPoP = openid.getDPoPHandle(config, await openid.randomDPoPKeyPair('ES256'));
      const verifier = openid.randomPKCECodeVerifier();
      const url = openid.buildAuthorizationUrl(config, {
        redirect_uri: spaRedirect, scope: 'openid offline_access',
        code_challenge: await openid.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
      });
      const tokens = await openid.authorizationCodeGrant(config, await walk(url), { pkceCodeVerifier: verifier }, undefined, { DPoP });
      const otherKey = openid.getDPoPHandle(config, await openid.randomDPoPKeyPair('ES256'));
      await expect(openid.refreshTokenGrant(config, tokens.refresh_token!, undefined, { DPoP: otherKey })).rejects.toMatchObject({ error: 'invalid_grant' });
      const refreshed = await openid.refreshTokenGrant(config, tokens.refresh_token!, undefined, { DPoP });
      expect(refreshed.token_type).toBe('dpop');
    });
  });

  describe('oauth4webapi', () => {
    let as: oauth.AuthorizationServer;
    beforeAll(async () => {
      const issuer = new URL(server.url);
      as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure));
    });

    /** oauth4webapi leaves the retry after `use_dpop_nonce` to the caller; the handle has kept the nonce. */
    async function withNonceRetry<T>(attempt: () => Promise<T>): Promise<T> {
      try {
        return await attempt();
      } catch (err) {
        if (!oauth.isDPoPNonceError(err)) throw err;
        return attempt();
      }
    }

    it('client_credentials with a DPoP() handle (PS256 and Ed25519 keys too)', async () => {
      const client: oauth.Client = { client_id: 'm2m' };
      for (const alg of ['ES256', 'PS256', 'EdDSA']) {
        const keyPair = await oauth.generateKeyPair(alg);
        const DPoP = oauth.DPoP(client, keyPair);
        const result = await withNonceRetry(async () => oauth.processClientCredentialsResponse(as, client,
          await oauth.clientCredentialsGrantRequest(as, client, oauth.ClientSecretPost('m2m-secret'), { scope: 'api1.read' }, { DPoP, ...insecure })));
        expect(result.token_type).toBe('dpop');
        expect(decodeJwt(result.access_token).cnf).toEqual({ jkt: await thumbprint(keyPair) });
      }
    });

    it('a public client pushes its request with a DPoP proof: the code is bound to that key (RFC 9449 §10.1)', async () => {
      const client: oauth.Client = { client_id: 'spa-offline' };
      const keyPair = await oauth.generateKeyPair('ES256');
      const DPoP = oauth.DPoP(client, keyPair);
      const verifier = oauth.generateRandomCodeVerifier();
      const pushed = await withNonceRetry(async () => oauth.processPushedAuthorizationResponse(as, client, await oauth.pushedAuthorizationRequest(as, client, oauth.None(), {
        redirect_uri: spaRedirect, response_type: 'code', scope: 'openid',
        code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
      }, { DPoP, ...insecure })));
      const url = new URL(as.authorization_endpoint!);
      url.search = new URLSearchParams({ client_id: client.client_id, request_uri: pushed.request_uri }).toString();
      const params = oauth.validateAuthResponse(as, client, await walk(url), oauth.expectNoState);
      const redeem = (handle: oauth.DPoPHandle) => withNonceRetry(async () => oauth.processAuthorizationCodeResponse(as, client,
        await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, spaRedirect, verifier, { DPoP: handle, ...insecure })));
      await expect(redeem(oauth.DPoP(client, await oauth.generateKeyPair('ES256')))).rejects.toMatchObject({ error: 'invalid_grant' });
      const tokens = await redeem(DPoP);
      expect(tokens.token_type).toBe('dpop');
      expect(decodeJwt(tokens.access_token).cnf).toEqual({ jkt: await thumbprint(keyPair) });
    });

    it('a public client: authorization_code, UserInfo, refresh bound to the key', async () => {
      const client: oauth.Client = { client_id: 'spa-offline' };
      const keyPair = await oauth.generateKeyPair('ES256');
      const DPoP = oauth.DPoP(client, keyPair);
      const verifier = oauth.generateRandomCodeVerifier();
      const url = new URL(as.authorization_endpoint!);
      url.search = new URLSearchParams({
        client_id: client.client_id, redirect_uri: spaRedirect, response_type: 'code', scope: 'openid profile offline_access',
        code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
      }).toString();
      const params = oauth.validateAuthResponse(as, client, await walk(url), oauth.expectNoState);
      const tokens = await withNonceRetry(async () => oauth.processAuthorizationCodeResponse(as, client,
        await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, spaRedirect, verifier, { DPoP, ...insecure })));
      expect(tokens.token_type).toBe('dpop');
      const info = await withNonceRetry(async () => oauth.processUserInfoResponse(as, client, alice.subjectId,
        await oauth.userInfoRequest(as, client, tokens.access_token, { DPoP, ...insecure })));
      expect(info).toEqual({ sub: alice.subjectId, acr: 'pwd', amr: ['pwd'], name: 'Alice Smith' });
      const refreshed = await withNonceRetry(async () => oauth.processRefreshTokenResponse(as, client,
        await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, { DPoP, ...insecure })));
      expect(refreshed.token_type).toBe('dpop');
      expect(decodeJwt(refreshed.access_token).cnf).toEqual({ jkt: await thumbprint(keyPair) });
    });
  });
});
