/**
 * Mutual TLS behind a TLS-terminating proxy: a real nginx asks for the client certificate and
 * forwards it URL-encoded (`$ssl_client_escaped_cert`) in `mtls.certificateHeader`. The service
 * reads that header only from its trusted proxy (127.0.0.1): the same header sent straight to the
 * service from another address (127.0.0.2) is the caller's own words and is ignored.
 */
import { request } from 'node:http';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret } from '../../src/sdk/hash.js';
import { makePki, partnerSubject, type Pki } from '../support/certificates.js';
import { nginxSkipReason, startNginx, type Nginx } from '../support/nginx.js';
import { startServer, type TestServer } from '../support/server.js';
import { curl, httpsPost } from '../support/tls-client.js';

const skip = nginxSkipReason();
const header = 'X-SSL-Client-Cert';
const denied = { error: 'invalid_client', error_description: 'Client authentication failed.' };

let pki: Pki;
let server: TestServer;
let nginx: Nginx;

beforeAll(async () => {
  if (skip) return;
  pki = await makePki();
  server = await startServer({
    trustedProxies: ['127.0.0.1'],
    mtls: { certificateHeader: header, clientCa: pki.file('client-ca.pem') },
    apiScopes: [{ name: 'api' }],
    apiResources: [{ name: 'api', scopes: ['api'], secrets: [{ value: hashSecret('api-secret') }] }],
    clients: [
      { clientId: 'named', clientSecrets: [{ type: 'X509Name', value: partnerSubject }], allowedGrantTypes: ['client_credentials'], allowedScopes: ['api'], requireCertificateBoundTokens: true },
      { clientId: 'pinned', clientSecrets: [{ type: 'X509Thumbprint', value: pki.partner.thumbprintHex }], allowedGrantTypes: ['client_credentials'], allowedScopes: ['api'] },
    ],
  });
  nginx = await startNginx(
    server.url,
    { [header]: '$ssl_client_escaped_cert', 'X-Forwarded-For': '$proxy_add_x_forwarded_for' },
    { certificate: pki.file('server.pem'), key: pki.file('server.key'), requestClientCertificate: true },
  );
});
afterAll(async () => {
  await nginx?.close();
  await server?.close();
});

/** A plain-http request straight to the service from 127.0.0.2, which is no trusted proxy. */
function direct(url: string, body: string, headers: Record<string, string>): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent: false, localAddress: '127.0.0.2', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe.skipIf(skip)('behind nginx forwarding $ssl_client_escaped_cert', () => {
  const tls = () => ({ ca: pki.serverCa.certificatePem, cert: pki.partner.certificatePem, key: pki.partner.keyPem });

  it('authenticates by the forwarded certificate (X509Name, chain to the CA) and binds the token to it', async () => {
    const res = await httpsPost(`${nginx.url}/connect/token`, { grant_type: 'client_credentials', client_id: 'named' }, tls());
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(decodeJwt(res.body.access_token as string).cnf).toEqual({ 'x5t#S256': pki.partner.thumbprint });
  });

  it('authenticates by a hex thumbprint with curl --cert through nginx', async () => {
    const res = await curl([
      '--cacert', pki.file('server-ca.pem'), '--cert', pki.file('partner.pem'), '--key', pki.file('partner.key'),
      '-d', 'grant_type=client_credentials', '-d', 'client_id=pinned', `${nginx.url}/connect/token`,
    ]);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  });

  it('answers invalid_client when the client sent nginx no certificate (an empty header)', async () => {
    const res = await httpsPost(`${nginx.url}/connect/token`, { grant_type: 'client_credentials', client_id: 'pinned' }, { ca: pki.serverCa.certificatePem });
    expect([res.status, res.body]).toEqual([401, denied]);
  });

  it('answers invalid_client for a certificate from a CA that is not configured, forwarded by nginx', async () => {
    const res = await httpsPost(`${nginx.url}/connect/token`, { grant_type: 'client_credentials', client_id: 'named' }, {
      ca: pki.serverCa.certificatePem, cert: pki.impostor.certificatePem, key: pki.impostor.keyPem,
    });
    expect([res.status, res.body]).toEqual([401, denied]);
  });

  it('ignores the header from an address that is not a trusted proxy, however good the certificate in it', async () => {
    const forged = { [header]: encodeURIComponent(pki.partner.certificatePem) };
    const res = await direct(`${server.url}/connect/token`, 'grant_type=client_credentials&client_id=pinned', forged);
    expect(res).toEqual({ status: 401, body: denied });
    const bound = await direct(`${server.url}/connect/token`, 'grant_type=client_credentials&client_id=named', forged);
    expect(bound).toEqual({ status: 401, body: denied });
  });

  it('treats an unreadable header from the trusted proxy as no certificate: invalid_client, not a 500', async () => {
    const res = await fetch(`${server.url}/connect/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', [header]: '%E0%A4%A' },
      body: 'grant_type=client_credentials&client_id=pinned',
    });
    expect([res.status, await res.json()]).toEqual([401, denied]);
    expect(server.logText()).toContain('client certificate header from a trusted proxy is unreadable; treated as none');
  });

  it('announces the mTLS methods and aliases at the issuer\'s own URLs', async () => {
    const doc = (await (await fetch(`${server.url}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    expect(doc.token_endpoint_auth_methods_supported).toEqual(expect.arrayContaining(['tls_client_auth', 'self_signed_tls_client_auth']));
    expect((doc.mtls_endpoint_aliases as Record<string, string>).token_endpoint).toBe(`${server.url}/connect/token`);
  });
});
