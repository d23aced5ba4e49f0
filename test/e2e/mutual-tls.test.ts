/**
 * Mutual TLS (RFC 8705) with the service terminating TLS itself: Node's https server asks for a
 * client certificate and never fails the handshake over it; the mutual-tls plugin judges the
 * certificate and every bad one answers 401 invalid_client. Certificates are made at test time;
 * requests come from Node's https client and from curl. Tokens of certificate-authenticated
 * clients, and of clients that require it, carry `cnf["x5t#S256"]` (RFC 8705 §3), and so does
 * introspection.
 */
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserConfig } from '../../src/config/schema.js';
import { hashSecret } from '../../src/sdk/hash.js';
import { makePki, partnerSubject, type Issued, type Pki } from '../support/certificates.js';
import { basic, freePort, startServer, type TestServer } from '../support/server.js';
import { curl, httpsGetJson, httpsPost, type ClientTls } from '../support/tls-client.js';
import { dpopKey } from '../support/dpop.js';

let pki: Pki;
let server: TestServer;

const cc = (clientId: string): Record<string, string> => ({ grant_type: 'client_credentials', client_id: clientId });
const client = (clientId: string, extra: Partial<NonNullable<UserConfig['clients']>[number]>) => ({
  clientId, allowedGrantTypes: ['client_credentials'], allowedScopes: ['api'], ...extra,
});
const denied = { error: 'invalid_client', error_description: 'Client authentication failed.' };

function config(port: number): UserConfig {
  return {
    port,
    issuer: `https://127.0.0.1:${port}`,
    tls: { certificate: pki.file('server.pem'), key: pki.file('server.key'), requestClientCertificate: true },
    mtls: { clientCa: pki.file('client-ca.pem'), certificateBoundAccessTokens: true },
    apiScopes: [{ name: 'api' }],
    apiResources: [
      { name: 'api', scopes: ['api'], secrets: [{ value: hashSecret('api-secret') }] },
      { name: 'api-mtls', scopes: ['api'], secrets: [{ type: 'X509Thumbprint', value: pki.stranger.thumbprint }] },
    ],
    clients: [
      client('pinned', { clientSecrets: [{ type: 'X509Thumbprint', value: pki.partner.thumbprint }] }),
      client('pinned-hex', { clientSecrets: [{ type: 'X509Thumbprint', value: pki.partner.thumbprintHex }], accessTokenType: 'reference' }),
      client('pinned-expired', { clientSecrets: [{ type: 'X509Thumbprint', value: pki.expired.thumbprint }] }),
      client('named', { clientSecrets: [{ type: 'X509Name', value: partnerSubject }] }),
      client('native', { clientSecrets: [{ type: 'X509CertificateBase64', value: pki.selfSigned.derBase64 }], tokenEndpointAuthMethods: ['self_signed_tls_client_auth'] }),
      client('secret-bound', { clientSecrets: [{ value: hashSecret('secret-bound-secret') }], requireCertificateBoundTokens: true }),
      client('secret-only', { clientSecrets: [{ value: hashSecret('secret-only-secret') }] }),
      client('both', { clientSecrets: [{ value: hashSecret('both-secret') }, { type: 'X509Thumbprint', value: pki.partner.thumbprint }] }),
    ],
  };
}

beforeAll(async () => {
  pki = await makePki();
  server = await startServer(config(await freePort()));
});
afterAll(async () => {
  await server?.close();
});

const tlsWith = (issued?: Issued): ClientTls => ({ ca: pki.serverCa.certificatePem, ...(issued ? { cert: issued.certificatePem, key: issued.keyPem } : {}) });
const token = (form: Record<string, string>, issued?: Issued, headers: Record<string, string> = {}) =>
  httpsPost(`${server.url}/connect/token`, form, tlsWith(issued), headers);

describe('the service terminating TLS', () => {
  it('listens on https and announces the mTLS methods, the certificate-bound tokens and its endpoint aliases (RFC 8705 §3.3, §5)', async () => {
    expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const { status, body } = await httpsGetJson(`${server.url}/.well-known/openid-configuration`, tlsWith());
    expect(status).toBe(200);
    expect(body.token_endpoint_auth_methods_supported).toEqual(expect.arrayContaining(['tls_client_auth', 'self_signed_tls_client_auth', 'client_secret_basic']));
    expect(body.tls_client_certificate_bound_access_tokens).toBe(true);
    expect(body.mtls_endpoint_aliases).toEqual({
      token_endpoint: `${server.url}/connect/token`,
      introspection_endpoint: `${server.url}/connect/introspect`,
      revocation_endpoint: `${server.url}/connect/revocation`,
      device_authorization_endpoint: `${server.url}/connect/deviceauthorization`,
      pushed_authorization_request_endpoint: `${server.url}/connect/par`,
      userinfo_endpoint: `${server.url}/connect/userinfo`,
    });
  });
});

describe('tls_client_auth and self_signed_tls_client_auth with Node\'s https client', () => {
  it('authenticates a client by its pinned certificate (X509Thumbprint) and binds its JWT to it', async () => {
    const res = await token(cc('pinned'), pki.partner);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.token_type).toBe('Bearer');
    expect(decodeJwt(res.body.access_token as string).cnf).toEqual({ 'x5t#S256': pki.partner.thumbprint });
  });

  it('authenticates by the subject name of a certificate the configured CA issued (X509Name)', async () => {
    const res = await token(cc('named'), pki.partner);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(decodeJwt(res.body.access_token as string).cnf).toEqual({ 'x5t#S256': pki.partner.thumbprint });
  });

  it('authenticates a native client by its registered self-signed certificate (X509CertificateBase64)', async () => {
    const res = await token(cc('native'), pki.selfSigned);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(decodeJwt(res.body.access_token as string).cnf).toEqual({ 'x5t#S256': pki.selfSigned.thumbprint });
  });

  it('introspection reports the binding of a reference token (RFC 8705 §3.2), for a hex-pinned client', async () => {
    const res = await token(cc('pinned-hex'), pki.partner);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const introspected = await httpsPost(`${server.url}/connect/introspect`, { token: res.body.access_token as string }, tlsWith(), { authorization: basic('api', 'api-secret') });
    expect(introspected.status).toBe(200);
    expect(introspected.body).toMatchObject({ active: true, client_id: 'pinned-hex', cnf: { 'x5t#S256': pki.partner.thumbprint } });
  });
});

describe('the other endpoints that authenticate callers', () => {
  it('introspection authenticates an API resource by its certificate, named by client_id', async () => {
    const issued = await token(cc('pinned-hex'), pki.partner);
    const introspect = (issued2?: Issued) =>
      httpsPost(`${server.url}/connect/introspect`, { client_id: 'api-mtls', token: issued.body.access_token as string }, tlsWith(issued2));
    expect((await introspect(pki.stranger)).body).toMatchObject({ active: true, cnf: { 'x5t#S256': pki.partner.thumbprint } });
    const refused = await introspect(pki.partner);
    expect(refused.status).toBe(401);
    expect(refused.body.error).toBe('invalid_client');
  });

  it('revocation authenticates the client by its certificate', async () => {
    const issued = await token(cc('pinned-hex'), pki.partner);
    const revoke = (issued2?: Issued) =>
      httpsPost(`${server.url}/connect/revocation`, { client_id: 'pinned-hex', token: issued.body.access_token as string }, tlsWith(issued2));
    expect((await revoke()).status).toBe(401);
    expect((await revoke(pki.partner)).status).toBe(200);
    const after = await httpsPost(`${server.url}/connect/introspect`, { token: issued.body.access_token as string }, tlsWith(), { authorization: basic('api', 'api-secret') });
    expect(after.body).toEqual({ active: false });
  });
});

describe('every bad certificate answers 401 invalid_client, never a TLS failure or a 500', () => {
  it('no certificate at all', async () => {
    const res = await token(cc('pinned'));
    expect([res.status, res.body]).toEqual([401, denied]);
  });

  it('a certificate other than the pinned one (wrong thumbprint)', async () => {
    const res = await token(cc('pinned'), pki.stranger);
    expect([res.status, res.body]).toEqual([401, denied]);
    expect(server.logText()).toContain('certificate does not match any of 1 X509Thumbprint secret(s)');
  });

  it('a certificate from the right CA with another subject (wrong DN)', async () => {
    const res = await token(cc('named'), pki.stranger);
    expect([res.status, res.body]).toEqual([401, denied]);
    expect(server.logText()).toContain('certificate subject does not match any of 1 X509Name secret(s)');
  });

  it('the right subject from a CA that is not configured (chain not from the CA)', async () => {
    const res = await token(cc('named'), pki.impostor);
    expect([res.status, res.body]).toEqual([401, denied]);
    expect(server.logText()).toContain('certificate not issued by a CA in mtls.clientCa');
  });

  it('an expired certificate, by name and pinned alike', async () => {
    const byName = await token(cc('named'), pki.expired);
    expect([byName.status, byName.body]).toEqual([401, denied]);
    const pinned = await token(cc('pinned-expired'), pki.expired);
    expect([pinned.status, pinned.body]).toEqual([401, denied]);
    expect(server.logText()).toMatch(/certificate expired /);
  });

  it('a self-signed certificate other than the registered one', async () => {
    const res = await token(cc('native'), pki.otherSelfSigned);
    expect([res.status, res.body]).toEqual([401, denied]);
    expect(server.logText()).toContain('certificate does not match any of 1 registered certificate(s) (X509CertificateBase64)');
  });

  it('a CA-issued certificate for a client pinned to self_signed_tls_client_auth', async () => {
    const res = await token(cc('native'), pki.partner);
    expect([res.status, res.body]).toEqual([401, denied]);
  });
});

describe('certificate-bound tokens for clients that authenticate otherwise (RFC 8705 §3)', () => {
  it('a client that requires them and sends no certificate is refused with invalid_request', async () => {
    const res = await token({ grant_type: 'client_credentials' }, undefined, { authorization: basic('secret-bound', 'secret-bound-secret') });
    expect([res.status, res.body]).toEqual([400, {
      error: 'invalid_request',
      error_description: 'This client must present a TLS client certificate: its access tokens are bound to it.',
    }]);
  });

  it('its Basic secret authenticates it, and the certificate on the connection binds the token', async () => {
    const res = await token({ grant_type: 'client_credentials' }, pki.stranger, { authorization: basic('secret-bound', 'secret-bound-secret') });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(decodeJwt(res.body.access_token as string).cnf).toEqual({ 'x5t#S256': pki.stranger.thumbprint });
  });

  it('a client holding a secret and a certificate secret authenticates with the secret it sent, not as two methods at once', async () => {
    const res = await token({ grant_type: 'client_credentials' }, pki.partner, { authorization: basic('both', 'both-secret') });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // mtls.certificateBoundAccessTokens binds the tokens of certificate-authenticated clients only.
    expect(decodeJwt(res.body.access_token as string).cnf).toBeUndefined();
    const wrong = await token({ grant_type: 'client_credentials' }, pki.partner, { authorization: basic('both', 'guess') });
    expect([wrong.status, wrong.body]).toEqual([401, denied]);
    const byCertificate = await token(cc('both'), pki.partner);
    expect(decodeJwt(byCertificate.body.access_token as string).cnf).toEqual({ 'x5t#S256': pki.partner.thumbprint });
  });

  it('a client that authenticates with a secret over a connection with a certificate gets a plain bearer token', async () => {
    const res = await token({ grant_type: 'client_credentials' }, pki.partner, { authorization: basic('secret-only', 'secret-only-secret') });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(decodeJwt(res.body.access_token as string).cnf).toBeUndefined();
  });
});

describe('mutual TLS and DPoP together', () => {
  it('a DPoP proof over a certificate-authenticated connection binds the token to both keys (one cnf, RFC 7800)', async () => {
    const key = await dpopKey();
    const res = await token(cc('pinned'), pki.partner, { DPoP: key.proof({ htu: `${server.url}/connect/token` }) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.token_type).toBe('DPoP');
    expect(decodeJwt(res.body.access_token as string).cnf).toEqual({ jkt: key.jkt, 'x5t#S256': pki.partner.thumbprint });
  });
});

describe('with curl', () => {
  const curlToken = (clientId: string, name?: string) => curl([
    '--cacert', pki.file('server-ca.pem'),
    ...(name ? ['--cert', pki.file(`${name}.pem`), '--key', pki.file(`${name}.key`)] : []),
    '-d', 'grant_type=client_credentials', '-d', `client_id=${clientId}`,
    `${server.url}/connect/token`,
  ]);

  it('gets a certificate-bound token with --cert and --key', async () => {
    const res = await curlToken('named', 'partner');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(decodeJwt(res.body.access_token as string).cnf).toEqual({ 'x5t#S256': pki.partner.thumbprint });
  });

  it('is refused with invalid_client without a certificate and with a stranger\'s', async () => {
    expect(await curlToken('named')).toEqual({ status: 401, body: denied });
    expect(await curlToken('named', 'impostor')).toEqual({ status: 401, body: denied });
  });
});
