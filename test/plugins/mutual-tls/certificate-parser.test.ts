/**
 * The mutual-tls parsers: the connection's certificate with the body's client_id, for callers
 * holding certificate secrets only, split between the two methods by the certificate's shape.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createSelfSignedParser, createTlsClientAuthParser } from '../../../plugins/mutual-tls/certificate-parser.js';
import type { CredentialSource } from '../../../src/sdk/contracts.js';
import { makePki, type Pki } from '../../support/certificates.js';
import { configWithClient, presented } from './helpers.js';

let pki: Pki;
beforeAll(async () => {
  pki = await makePki();
});

const source = (params: Record<string, string>, extra: Partial<CredentialSource> = {}): CredentialSource => ({
  params: new Map(Object.entries(params)),
  authorization: undefined,
  endpoint: 'token',
  ...extra,
});

describe('mutual-tls parsers', () => {
  it('are connection-level parsers of X509Certificate credentials, one per RFC 8705 method', () => {
    const config = configWithClient([{ type: 'X509Thumbprint', value: 'a'.repeat(64) }]);
    const tls = createTlsClientAuthParser({ config });
    const selfSigned = createSelfSignedParser({ config });
    expect([tls.authenticationMethod, tls.parsedSecretType, tls.fromConnection]).toEqual(['tls_client_auth', 'X509Certificate', true]);
    expect([selfSigned.authenticationMethod, selfSigned.parsedSecretType, selfSigned.fromConnection]).toEqual(['self_signed_tls_client_auth', 'X509Certificate', true]);
  });

  it('hand a CA-issued certificate to tls_client_auth and a self-signed one to self_signed_tls_client_auth, never both', () => {
    const config = configWithClient([{ type: 'X509Name', value: 'CN=partner' }]);
    const tls = createTlsClientAuthParser({ config });
    const selfSigned = createSelfSignedParser({ config });
    const issued = presented(pki.partner, [pki.clientCa]);
    expect(tls.parse(source({ client_id: 'partner' }, { clientCertificate: issued }))).toEqual({
      id: 'partner', credential: issued.thumbprint, type: 'X509Certificate', decoded: issued,
    });
    expect(selfSigned.parse(source({ client_id: 'partner' }, { clientCertificate: issued }))).toBeUndefined();
    const own = presented(pki.selfSigned);
    expect(tls.parse(source({ client_id: 'partner' }, { clientCertificate: own }))).toBeUndefined();
    expect(selfSigned.parse(source({ client_id: 'partner' }, { clientCertificate: own }))).toMatchObject({ id: 'partner', type: 'X509Certificate' });
  });

  it('find nothing without a certificate, without client_id, or for a config client holding no certificate secret', () => {
    const config = configWithClient([{ type: 'X509Name', value: 'CN=partner' }]);
    const tls = createTlsClientAuthParser({ config });
    const issued = presented(pki.partner, [pki.clientCa]);
    expect(tls.parse(source({ client_id: 'partner' }))).toBeUndefined();
    expect(tls.parse(source({}, { clientCertificate: issued }))).toBeUndefined();
    // An id the config does not know may be a stored client's: the host, which resolves it, decides.
    expect(tls.parse(source({ client_id: 'nobody' }, { clientCertificate: issued }))).toMatchObject({ id: 'nobody', type: 'X509Certificate' });
    // A public client may present a certificate only to bind its tokens (RFC 8705 §4).
    const publicOnly = configWithClient([], { requireClientSecret: false });
    expect(createTlsClientAuthParser({ config: publicOnly }).parse(source({ client_id: 'partner' }, { clientCertificate: issued }))).toBeUndefined();
  });
});
