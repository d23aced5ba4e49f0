/**
 * The FAPI 2.0 flow with mutual TLS instead of DPoP (issue 37), over real TLS with certificates
 * made at test time, the profile turned on for every client by the one global setting
 * (`fapi2: 'message-signing'`): oauth4webapi authenticates with its certificate
 * (`tls_client_auth`, RFC 8705 §2), pushes a request object signed with the same certificate's
 * key, reads the JARM response, redeems the code and gets a token bound to the certificate
 * (`cnf["x5t#S256"]`, RFC 8705 §3) without the client's `requireCertificateBoundTokens`; UserInfo
 * accepts it over a connection with that certificate and refuses it without.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as oauth from 'oauth4webapi';
import { decodeJwt } from 'jose';
import { makePki, partnerSubject, type Pki } from '../support/certificates.js';
import { freePort, startServer, type TestServer } from '../support/server.js';
import { alice, authorizeUrl, Browser, signInConfig } from '../support/sign-in.js';
import { tlsFetch } from '../support/tls-fetch.js';

const redirectUri = 'https://bank-app.example.com/callback';

let pki: Pki;
let server: TestServer;
let as: oauth.AuthorizationServer;
let withCertificate: typeof fetch;
let withoutCertificate: typeof fetch;
const client: oauth.Client = { client_id: 'bank-app', id_token_signed_response_alg: 'PS256', authorization_signed_response_alg: 'ES256' };

beforeAll(async () => {
  pki = await makePki();
  withCertificate = tlsFetch({ ca: pki.serverCa.certificatePem, cert: pki.partner.certificatePem, key: pki.partner.keyPem });
  withoutCertificate = tlsFetch({ ca: pki.serverCa.certificatePem });
  const port = await freePort();
  server = await startServer(await signInConfig({
    port,
    issuer: `https://127.0.0.1:${port}`,
    tls: { certificate: pki.file('server.pem'), key: pki.file('server.key'), requestClientCertificate: true },
    mtls: { clientCa: pki.file('client-ca.pem') },
    signing: { idTokenAlgorithms: ['RS256', 'PS256'] },
    fapi2: 'message-signing',
    clients: [{
      clientId: 'bank-app', clientName: 'Bank app',
      // The CA-issued certificate authenticates (by its subject); the same certificate verifies its request objects.
      clientSecrets: [{ type: 'X509Name', value: partnerSubject }, { type: 'X509CertificateBase64', value: pki.partner.derBase64 }],
      tokenEndpointAuthMethods: ['tls_client_auth'], allowedGrantTypes: ['authorization_code'], allowedScopes: ['openid', 'profile'],
      redirectUris: [redirectUri], authorizationCodeLifetime: 30,
      allowedIdentityTokenSigningAlgorithms: ['PS256'], authorizationSignedResponseAlg: 'ES256',
    }],
  }));
  const issuer = new URL(server.url);
  as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { [oauth.customFetch]: withoutCertificate }));
});
afterAll(() => server?.close());

describe('oauth4webapi runs the FAPI 2.0 flow over mutual TLS', () => {
  it('discovery says PAR and signed request objects are required for every client', () => {
    expect(as).toMatchObject({ require_pushed_authorization_requests: true, require_signed_request_object: true, tls_client_certificate_bound_access_tokens: true });
  });

  it('PAR with a signed request object and tls_client_auth, JARM, redemption, a certificate-bound token UserInfo takes only with the certificate', async () => {
    const options = { [oauth.customFetch]: withCertificate };
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const request = await oauth.issueRequestObject(as, client, {
      redirect_uri: redirectUri, response_type: 'code', scope: 'openid profile', state, nonce: 'n-1', response_mode: 'jwt',
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
    }, { key: pki.partner.keys.privateKey as oauth.CryptoKey });
    const pushed = await oauth.pushedAuthorizationRequest(as, client, oauth.TlsClientAuth(), { request }, options);
    const { request_uri: requestUri } = await oauth.processPushedAuthorizationResponse(as, client, pushed);

    const browser = new Browser(server.url, withoutCertificate);
    const form = await browser.get(authorizeUrl(server, { client_id: 'bank-app', request_uri: requestUri }));
    const page = await browser.submit(form, { username: alice.username, password: alice.password });
    expect(page.status).toBe(303);
    const params = await oauth.validateJwtAuthResponse(as, client, page.location!, state, options);
    expect(params.get('iss')).toBe(server.url);

    const redeemed = await oauth.authorizationCodeGrantRequest(as, client, oauth.TlsClientAuth(), params, redirectUri, verifier, options);
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, redeemed, { expectedNonce: 'n-1', requireIdToken: true });
    expect(tokens.token_type).toBe('bearer');
    // Bound by the profile: the client did not set requireCertificateBoundTokens, nor the service mtls.certificateBoundAccessTokens.
    expect(decodeJwt(tokens.access_token).cnf).toEqual({ 'x5t#S256': pki.partner.thumbprint });

    const userInfo = await oauth.userInfoRequest(as, client, tokens.access_token, options);
    expect(await oauth.processUserInfoResponse(as, client, alice.subjectId, userInfo)).toMatchObject({ sub: alice.subjectId, name: 'Alice Smith' });
    const stolen = await withoutCertificate(`${server.url}/connect/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(stolen.status).toBe(401);
    expect(stolen.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });
});
