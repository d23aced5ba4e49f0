/**
 * Signed request objects (RFC 9101, JAR) and signed authorization responses (JARM) with real
 * client libraries from npm, while a person signs in through the pages over HTTP: oauth4webapi
 * pushes a signed request object (PAR, private_key_jwt), reads the JARM response in the query
 * and in a form post, and redeems the code; openid-client sends its request object on the front
 * channel (`buildAuthorizationUrlWithJAR`) and reads JARM with `useJwtResponseMode`. The refusals
 * a person or a client sees come last.
 */
import { webcrypto } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as oauth from 'oauth4webapi';
import * as openid from 'openid-client';
import { decodeJwt } from 'jose';
import { startServer, type TestServer } from '../support/server.js';
import { alice, authorizeUrl, Browser, formsOf, signInAndAuthorize, signInClients, signInConfig, type Page } from '../support/sign-in.js';

const redirectUri = 'https://bank-app.example.com/callback';
const insecure = { [oauth.allowInsecureRequests]: true };

let server: TestServer;
let key: oauth.PrivateKey;
let as: oauth.AuthorizationServer;
const client: oauth.Client = { client_id: 'bank-app' };

beforeAll(async () => {
  const pair = await webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']);
  key = { key: pair.privateKey as oauth.CryptoKey, kid: 'bank-app-2030' };
  const publicJwk = { ...(await webcrypto.subtle.exportKey('jwk', pair.publicKey)), kid: 'bank-app-2030' };
  server = await startServer(await signInConfig({
    clients: [
      ...signInClients,
      {
        clientId: 'bank-app', clientName: 'Bank app', clientSecrets: [{ type: 'JsonWebKey', value: JSON.stringify({ kty: publicJwk.kty, crv: publicJwk.crv, x: publicJwk.x, y: publicJwk.y, kid: publicJwk.kid }) }],
        tokenEndpointAuthMethods: ['private_key_jwt'], allowedGrantTypes: ['authorization_code'], allowedScopes: ['openid', 'profile'],
        redirectUris: [redirectUri], requireRequestObject: true, authorizationSignedResponseAlg: 'ES256',
      },
    ],
  }));
  const issuer = new URL(server.url);
  as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure));
});
afterAll(() => server?.close());

/** Signs alice in from an authorization URL; returns the last page (a redirect, or the form_post page). */
async function signIn(params: Record<string, string>): Promise<Page> {
  const browser = new Browser(server.url);
  let page = await browser.get(authorizeUrl(server, params));
  if (page.html.includes('<h1>Sign in</h1>')) page = await browser.submit(page, { username: alice.username, password: alice.password });
  return page;
}

describe('discovery', () => {
  it('lists request objects and JARM', async () => {
    const body = await (await fetch(`${server.url}/.well-known/openid-configuration`)).json() as Record<string, unknown>;
    expect(body).toMatchObject({
      request_parameter_supported: true,
      require_signed_request_object: false,
      request_object_signing_alg_values_supported: expect.arrayContaining(['PS256', 'ES256', 'RS256', 'EdDSA']),
      response_modes_supported: ['query', 'form_post', 'jwt', 'query.jwt', 'form_post.jwt'],
      authorization_signing_alg_values_supported: ['ES256', 'RS256'],
    });
    expect(body.request_object_signing_alg_values_supported).not.toContain('none');
  });
});

describe('oauth4webapi', () => {
  async function pushSigned(extra: Record<string, string>): Promise<{ requestUri: string; verifier: string; state: string }> {
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const request = await oauth.issueRequestObject(as, client, {
      redirect_uri: redirectUri, response_type: 'code', scope: 'openid profile', state, nonce: 'n-1',
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256', ...extra,
    }, key);
    const response = await oauth.pushedAuthorizationRequest(as, client, oauth.PrivateKeyJwt(key), { request }, insecure);
    const { request_uri: requestUri } = await oauth.processPushedAuthorizationResponse(as, client, response);
    return { requestUri, verifier, state };
  }

  it('PAR with a signed request object, private_key_jwt, JARM in the query, and the code redeemed', async () => {
    const { requestUri, verifier, state } = await pushSigned({ response_mode: 'jwt' });
    const page = await signIn({ client_id: 'bank-app', request_uri: requestUri });
    expect(page.status).toBe(303);
    const callback = page.location!;
    expect([...callback.searchParams.keys()]).toEqual(['response']);
    const params = await oauth.validateJwtAuthResponse(as, client, callback, state, insecure);
    expect(params.get('iss')).toBe(server.url);
    const response = await oauth.authorizationCodeGrantRequest(as, client, oauth.PrivateKeyJwt(key), params, redirectUri, verifier, insecure);
    const result = await oauth.processAuthorizationCodeResponse(as, client, response, { expectedNonce: 'n-1', requireIdToken: true });
    expect(oauth.getValidatedIdTokenClaims(result)).toMatchObject({ sub: alice.subjectId, aud: 'bank-app', name: 'Alice Smith' });
  });

  it('form_post.jwt: the page posts one response field, which the library verifies', async () => {
    const { requestUri, state } = await pushSigned({ response_mode: 'form_post.jwt' });
    const page = await signIn({ client_id: 'bank-app', request_uri: requestUri });
    expect(page.status).toBe(200);
    const [form] = formsOf(page.html);
    expect(form?.action).toBe(redirectUri);
    expect(Object.keys(form!.fields)).toEqual(['response']);
    const params = await oauth.validateJwtAuthResponse(as, client, new URLSearchParams(form!.fields), state, insecure);
    expect(params.get('code')).toMatch(/.+/);
  });

  it('a pushed request whose object is not signed by the client is refused with invalid_request_object', async () => {
    const other = await webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']);
    const request = await oauth.issueRequestObject(as, client, { redirect_uri: redirectUri, response_type: 'code', scope: 'openid' }, { key: other.privateKey as oauth.CryptoKey });
    const response = await oauth.pushedAuthorizationRequest(as, client, oauth.PrivateKeyJwt(key), { request }, insecure);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: 'invalid_request_object', error_description: 'The request object is invalid.' });
  });

  it('a pushed request without an object, for a client that requires one, is refused', async () => {
    const response = await oauth.pushedAuthorizationRequest(as, client, oauth.PrivateKeyJwt(key), {
      redirect_uri: redirectUri, response_type: 'code', scope: 'openid', code_challenge: 'a'.repeat(43), code_challenge_method: 'S256',
    }, insecure);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: 'invalid_request', error_description: 'This client must send a signed request object (request).' });
  });
});

describe('openid-client', () => {
  it('a request object on the front channel (buildAuthorizationUrlWithJAR) and JARM (useJwtResponseMode)', async () => {
    const config = await openid.discovery(new URL(server.url), 'bank-app', { authorization_signed_response_alg: 'ES256' }, openid.PrivateKeyJwt(key), { execute: [openid.allowInsecureRequests] });
    openid.useJwtResponseMode(config);
    const verifier = openid.randomPKCECodeVerifier();
    const state = openid.randomState();
    const url = await openid.buildAuthorizationUrlWithJAR(config, {
      redirect_uri: redirectUri, scope: 'openid profile', state, response_mode: 'jwt',
      code_challenge: await openid.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
    }, key);
    expect([...url.searchParams.keys()].sort()).toEqual(['client_id', 'request']);
    expect(decodeJwt(url.searchParams.get('request')!)).toMatchObject({ iss: 'bank-app', aud: server.url, client_id: 'bank-app' });
    const callback = await signInAndAuthorize(server, new Browser(server.url), Object.fromEntries(url.searchParams));
    const tokens = await openid.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state, idTokenExpected: true });
    expect(tokens.claims()).toMatchObject({ sub: alice.subjectId, aud: 'bank-app' });
  });
});

describe('what a person and a client see when it goes wrong', () => {
  it('a replayed request object is answered invalid_request_object at the redirect URI, signed as JARM asked', async () => {
    const request = await oauth.issueRequestObject(as, client, {
      redirect_uri: redirectUri, response_type: 'code', scope: 'openid', state: 's-1', code_challenge: 'a'.repeat(43), code_challenge_method: 'S256',
    }, key);
    const first = await new Browser(server.url).get(authorizeUrl(server, { client_id: 'bank-app', request }));
    expect(first.html).toContain('<h1>Sign in</h1>');
    const again = await new Browser(server.url).get(authorizeUrl(server, { client_id: 'bank-app', request, redirect_uri: redirectUri, state: 's-2', response_mode: 'jwt' }));
    expect(again.status).toBe(303);
    expect([...again.location!.searchParams.keys()]).toEqual(['response']);
    // The library verifies the JWT (signature, iss, aud, exp, state), then reports the error inside.
    const refused = await oauth.validateJwtAuthResponse(as, client, again.location!, 's-2', insecure).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(oauth.AuthorizationResponseError);
    expect(Object.fromEntries((refused as oauth.AuthorizationResponseError).cause)).toEqual({
      error: 'invalid_request_object', error_description: 'The request object was already used.', state: 's-2', iss: server.url,
    });
  });

  it('a plain request from a client that requires request objects is redirected with invalid_request', async () => {
    const page = await new Browser(server.url).get(authorizeUrl(server, {
      client_id: 'bank-app', redirect_uri: redirectUri, response_type: 'code', scope: 'openid', state: 's', code_challenge: 'a'.repeat(43), code_challenge_method: 'S256',
    }));
    expect(page.status).toBe(303);
    expect(Object.fromEntries(page.location!.searchParams)).toEqual({ error: 'invalid_request', error_description: 'This client must send a signed request object (request).', state: 's', iss: server.url });
  });

  it('a broken object with no redirect URI beside it is a page, never a 500', async () => {
    const page = await new Browser(server.url).get(authorizeUrl(server, { client_id: 'bank-app', request: 'e30.e30.e30' }));
    expect(page.status).toBe(400);
    expect(page.html).toContain('The request is malformed.');
  });

  it('a request_uri of another host (by reference) is request_uri_not_supported at the redirect URI; a made-up URN is the page', async () => {
    const page = await new Browser(server.url).get(authorizeUrl(server, { client_id: 'bank-app', request_uri: 'https://bank-app.example.com/request.jwt', redirect_uri: redirectUri, state: 's' }));
    expect(page.status).toBe(303);
    expect(Object.fromEntries(page.location!.searchParams)).toEqual({
      error: 'request_uri_not_supported', error_description: 'A request_uri is accepted only from pushed authorization requests.', state: 's', iss: server.url,
    });
    const urn = await new Browser(server.url).get(authorizeUrl(server, { client_id: 'bank-app', request_uri: `urn:ietf:params:oauth:request_uri:${'a'.repeat(43)}` }));
    expect(urn.status).toBe(400);
    expect(urn.html).toContain('expired or was already used');
  });

  it('response_mode=fragment.jwt is not supported (no tokens in the front channel)', async () => {
    const request = await oauth.issueRequestObject(as, client, {
      redirect_uri: redirectUri, response_type: 'code', scope: 'openid', state: 's', response_mode: 'fragment.jwt', code_challenge: 'a'.repeat(43), code_challenge_method: 'S256',
    }, key);
    const page = await new Browser(server.url).get(authorizeUrl(server, { client_id: 'bank-app', request }));
    expect(page.status).toBe(303);
    expect(Object.fromEntries(page.location!.searchParams)).toEqual({ error: 'invalid_request', error_description: 'The response_mode is not supported.', state: 's', iss: server.url });
  });
});
