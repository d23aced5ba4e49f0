/**
 * The `tls` and `mtls` settings: their shape is checked with the rest of the config; the files
 * they name are read at start-up, and a file that cannot be read or does not hold what its field
 * promises stops start-up naming the field. Paths resolve against the config file's folder.
 */
import { writeFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkConfig } from '../../src/config/load.js';
import { validateUserConfig } from '../../src/config/validate.js';
import { makePki, type Pki } from '../support/certificates.js';
import { bootErrorFor } from '../support/boot-error.js';

describe('validateUserConfig: tls and mtls', () => {
  it('accepts a complete setting of both', () => {
    expect(validateUserConfig({
      issuer: 'https://auth.example.com',
      tls: { certificate: './tls/server.pem', key: './tls/server.key', requestClientCertificate: true },
      mtls: { clientCa: './tls/client-ca.pem', certificateHeader: 'X-SSL-Client-Cert', certificateBoundAccessTokens: true, endpointAliasesBaseUrl: 'https://mtls.example.com' },
      clients: [{ clientId: 'c', clientSecrets: [{ type: 'X509Name', value: 'CN=c' }], allowedGrantTypes: ['client_credentials'], allowedScopes: [], requireCertificateBoundTokens: true }],
    })).toEqual([]);
  });

  it('names each bad field', () => {
    expect(validateUserConfig({
      issuer: 'http://auth.example.com',
      tls: { certificate: '', requestClientCertificate: 'yes', ca: './x' },
      mtls: { certificateHeader: 'X SSL Cert', certificateBoundAccessTokens: 1, endpointAliasesBaseUrl: 'http://mtls.example.com' },
      clients: [{ clientId: 'c', requireClientSecret: false, allowedGrantTypes: ['password'], allowedScopes: [], requireCertificateBoundTokens: 'true' }],
    })).toEqual([
      'clients[0].requireCertificateBoundTokens: expected true or false, got "true"',
      'tls.ca: unknown field (known: certificate, key, requestClientCertificate)',
      'tls.certificate: expected a non-empty string, got ""',
      'tls.key: required, expected a non-empty string',
      'tls.requestClientCertificate: expected true or false, got "yes"',
      'issuer: the service terminates TLS itself (tls is set): expected an https issuer, got "http://auth.example.com"',
      'mtls.certificateHeader: expected a header name such as "x-ssl-client-cert", got "X SSL Cert"',
      'mtls.certificateBoundAccessTokens: expected true or false, got number 1',
      'mtls.endpointAliasesBaseUrl: expected an https URL without query or fragment, such as "https://mtls.example.com", got "http://mtls.example.com"',
    ]);
  });

  it('resolves paths against the config folder, lower-cases the header, and defaults the aliases to the issuer', () => {
    const config = checkConfig({
      issuer: 'https://auth.example.com/',
      tls: { certificate: './tls/server.pem', key: '/etc/svc/server.key' },
      mtls: { clientCa: 'client-ca.pem', certificateHeader: 'X-SSL-Client-Cert' },
    }, '/srv/svc');
    expect(config.tls).toEqual({ certificate: '/srv/svc/tls/server.pem', key: '/etc/svc/server.key', requestClientCertificate: false });
    expect(config.mtls).toEqual({
      clientCa: '/srv/svc/client-ca.pem', certificateHeader: 'x-ssl-client-cert', certificateBoundAccessTokens: false, endpointAliasesBaseUrl: 'https://auth.example.com',
    });
    expect(checkConfig({}, '/srv/svc').tls).toBeUndefined();
  });
});

describe('start-up reads the TLS files', () => {
  let pki: Pki;
  beforeAll(async () => {
    pki = await makePki();
    writeFileSync(pki.file('garbage.pem'), '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n');
  });
  const base = (tls: Record<string, unknown>, mtls?: Record<string, unknown>) => ({
    store: 'memory', pluginDirs: [], issuer: 'https://127.0.0.1:9443', tls, ...(mtls ? { mtls } : {}),
  });
  const server = () => ({ certificate: pki.file('server.pem'), key: pki.file('server.key') });

  it('stops for a certificate file that cannot be read', async () => {
    const err = await bootErrorFor(base({ ...server(), certificate: './missing.pem' }), pki.dir);
    expect([err.code, err.message]).toEqual(['CONFIG_INVALID', `tls.certificate: cannot read ${pki.file('missing.pem')} (ENOENT)`]);
  });

  it('stops for a certificate file that holds no certificate, or one that does not parse', async () => {
    const noPem = await bootErrorFor(base({ ...server(), certificate: pki.file('server.key') }), pki.dir);
    expect(noPem.message).toBe(`tls.certificate: ${pki.file('server.key')} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
    const bad = await bootErrorFor(base({ ...server(), certificate: pki.file('garbage.pem') }), pki.dir);
    expect(bad.message).toMatch(/^tls\.certificate: certificate #1 in .*garbage\.pem does not parse/);
  });

  it('stops for a key that is no key, or not the certificate\'s', async () => {
    const notKey = await bootErrorFor(base({ ...server(), key: pki.file('server.pem') }), pki.dir);
    expect(notKey.message).toMatch(/^tls\.key: .*server\.pem is not an unencrypted PEM private key/);
    const other = await bootErrorFor(base({ ...server(), key: pki.file('partner.key') }), pki.dir);
    expect(other.message).toBe(`tls.key: ${pki.file('partner.key')} is not the private key of the first certificate in tls.certificate (${pki.file('server.pem')})`);
  });

  it('stops for a client CA file holding a certificate that is not a CA', async () => {
    const err = await bootErrorFor(base(server(), { clientCa: pki.file('partner.pem') }), pki.dir);
    expect(err.message).toBe('mtls.clientCa: certificate #1 (CN=partner, O=Example Partner, C=DE) is not a CA certificate (basicConstraints CA:TRUE)');
  });
});
