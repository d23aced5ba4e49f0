/**
 * The mutual-tls validators with plain values: X509Thumbprint (base64url or hex SHA-256),
 * X509Name (subject DN, issued by a configured CA), X509CertificateBase64 (the registered
 * certificate); every one refuses a certificate outside its validity. Stored values are parsed
 * at start-up, and a bad one stops it, naming the secret.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createCertificateValidator, createNameValidator, createThumbprintValidator } from '../../../plugins/mutual-tls/certificate-validators.js';
import type { SecretConfig } from '../../../src/config/schema.js';
import type { ClientCertificate, SecretValidationContext, SecretValidator } from '../../../src/sdk/contracts.js';
import { makePki, type Pki } from '../../support/certificates.js';
import { configWithClient, presented, systemClock } from './helpers.js';

let pki: Pki;
beforeAll(async () => {
  pki = await makePki();
});

type Make = typeof createThumbprintValidator;

function judge(make: Make, secrets: SecretConfig[], certificate: ClientCertificate) {
  const config = configWithClient(secrets);
  const client = config.clients[0]!;
  const validator: SecretValidator = make({ config, clock: systemClock });
  const context: SecretValidationContext = {
    parsed: { id: 'partner', credential: certificate.thumbprint, type: 'X509Certificate', decoded: certificate },
    secrets: client.clientSecrets.filter((s) => validator.secretTypes.includes(s.type)),
    holder: { kind: 'client', client },
    endpoint: 'token',
  };
  return validator.validate(context);
}

describe('X509Thumbprint', () => {
  it('accepts the pinned certificate by its base64url thumbprint (x5t#S256) and by its hex fingerprint', async () => {
    const cert = presented(pki.partner);
    expect(await judge(createThumbprintValidator, [{ type: 'X509Thumbprint', value: pki.partner.thumbprint }], cert)).toEqual({ success: true });
    expect(await judge(createThumbprintValidator, [{ type: 'X509Thumbprint', value: pki.partner.thumbprintHex }], cert)).toEqual({ success: true });
    const bareLowerHex = pki.partner.thumbprintHex.replaceAll(':', '').toLowerCase();
    expect(await judge(createThumbprintValidator, [{ type: 'X509Thumbprint', value: bareLowerHex }], cert)).toEqual({ success: true });
  });

  it('refuses another certificate, and an expired one even when pinned', async () => {
    expect(await judge(createThumbprintValidator, [{ type: 'X509Thumbprint', value: pki.stranger.thumbprint }], presented(pki.partner))).toEqual({
      success: false, reason: 'certificate does not match any of 1 X509Thumbprint secret(s)',
    });
    const expired = await judge(createThumbprintValidator, [{ type: 'X509Thumbprint', value: pki.expired.thumbprint }], presented(pki.expired));
    expect(expired).toMatchObject({ success: false, reason: expect.stringMatching(/^certificate expired /) });
  });

  it('stops start-up for a SHA-1 thumbprint or anything else, naming the secret', () => {
    const sha1 = 'AB'.repeat(20);
    expect(() => createThumbprintValidator({ config: configWithClient([{ type: 'X509Thumbprint', value: sha1 }]), clock: systemClock })).toThrow(
      'clients[0].clientSecrets[0].value (X509Thumbprint): a SHA-1 thumbprint (40 hex digits); give the SHA-256 one: openssl x509 -in client.pem -noout -fingerprint -sha256',
    );
    expect(() => createThumbprintValidator({ config: configWithClient([{ type: 'X509Thumbprint', value: 'not-a-thumbprint' }]), clock: systemClock })).toThrow(
      'clients[0].clientSecrets[0].value (X509Thumbprint): expected a SHA-256 thumbprint: 43 base64url characters or 64 hex digits',
    );
  });
});

describe('X509Name', () => {
  it('accepts a certificate from a configured CA whose subject is the name, in either order and spacing', async () => {
    const cert = presented(pki.partner, [pki.clientCa]);
    for (const value of ['CN=partner, O=Example Partner, C=DE', 'C=DE,O=Example Partner,CN=partner', 'cn=partner,o=example partner,c=de']) {
      expect(await judge(createNameValidator, [{ type: 'X509Name', value }], cert), value).toEqual({ success: true });
    }
  });

  it('refuses another subject from the same CA', async () => {
    expect(await judge(createNameValidator, [{ type: 'X509Name', value: 'CN=partner, O=Example Partner, C=DE' }], presented(pki.stranger, [pki.clientCa]))).toEqual({
      success: false, reason: 'certificate subject does not match any of 1 X509Name secret(s)',
    });
  });

  it('refuses the right subject from a CA that is not configured, and any subject with no CA configured', async () => {
    const secret = [{ type: 'X509Name', value: 'CN=partner, O=Example Partner, C=DE' }];
    expect(await judge(createNameValidator, secret, presented(pki.impostor, [pki.clientCa]))).toEqual({
      success: false, reason: 'certificate not issued by a CA in mtls.clientCa',
    });
    expect(await judge(createNameValidator, secret, presented(pki.partner, []))).toEqual({
      success: false, reason: 'certificate not issued by a CA in mtls.clientCa',
    });
  });

  it('refuses an expired certificate with the right subject from the right CA', async () => {
    const result = await judge(createNameValidator, [{ type: 'X509Name', value: 'CN=partner, O=Example Partner, C=DE' }], presented(pki.expired, [pki.clientCa]));
    expect(result).toMatchObject({ success: false, reason: expect.stringMatching(/^certificate expired /) });
  });

  it('stops start-up for a value that is not a distinguished name', () => {
    expect(() => createNameValidator({ config: configWithClient([{ type: 'X509Name', value: 'partner' }]), clock: systemClock })).toThrow(
      'clients[0].clientSecrets[0].value (X509Name): expected a distinguished name such as "CN=client, O=Example, C=DE"',
    );
  });
});

describe('X509CertificateBase64', () => {
  it('accepts the registered self-signed certificate and refuses another with the same subject', async () => {
    const secret = [{ type: 'X509CertificateBase64', value: pki.selfSigned.derBase64 }];
    expect(await judge(createCertificateValidator, secret, presented(pki.selfSigned))).toEqual({ success: true });
    expect(await judge(createCertificateValidator, secret, presented(pki.otherSelfSigned))).toEqual({
      success: false, reason: 'certificate does not match any of 1 registered certificate(s) (X509CertificateBase64)',
    });
  });

  it('stops start-up for PEM armour or a value that is no certificate', () => {
    const config = (value: string) => configWithClient([{ type: 'X509CertificateBase64', value }]);
    expect(() => createCertificateValidator({ config: config(pki.selfSigned.certificatePem), clock: systemClock })).toThrow(/found PEM armour/);
    expect(() => createCertificateValidator({ config: config('bm90IGEgY2VydA=='), clock: systemClock })).toThrow(/clients\[0\]\.clientSecrets\[0\]\.value \(X509CertificateBase64\): not a DER X\.509 certificate/);
  });
});
