import { X509Certificate, createPrivateKey, createPublicKey } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SignJWT, importPKCS8 } from 'jose';
import { createAssertionValidator } from '../../plugins/private-key-jwt/assertion-validator.js';
import { createClientKey, type ClientKeyAlgorithm } from '../../src/cli/create-client-key.js';
import { ISSUER, contextFor, makeClient, makeDeps } from '../plugins/private-key-jwt/helpers.js';

const DAY = 86_400_000;
const keyTypes: Record<ClientKeyAlgorithm, [string, object]> = {
  RS256: ['rsa', { modulusLength: 2048 }],
  PS256: ['rsa', { modulusLength: 2048 }],
  ES256: ['ec', { namedCurve: 'prime256v1' }],
  EdDSA: ['ed25519', {}],
};

describe('createClientKey', () => {
  it.each(Object.keys(keyTypes) as ClientKeyAlgorithm[])('makes a %s key and a self-signed certificate the plugin accepts', async (alg) => {
    const before = Date.now();
    const { privateKeyPem, certificatePem, secret } = await createClientKey({ clientId: 'billing', alg });

    const certificate = new X509Certificate(certificatePem);
    expect(certificate.subject).toBe('CN=billing');
    expect(certificate.issuer).toBe('CN=billing');
    expect(certificate.ca).toBe(false);
    expect(certificate.verify(certificate.publicKey)).toBe(true);
    const notBefore = Date.parse(certificate.validFrom);
    expect(notBefore).toBeGreaterThan(before - 1000);
    expect(notBefore).toBeLessThanOrEqual(Date.now());
    expect(Date.parse(certificate.validTo) - notBefore).toBe(365 * DAY);
    expect([certificate.publicKey.asymmetricKeyType, certificate.publicKey.asymmetricKeyDetails]).toMatchObject(keyTypes[alg]);

    expect(secret).toEqual({
      type: 'X509CertificateBase64',
      value: certificate.raw.toString('base64'),
      description: `${alg} key of billing, created ${new Date(notBefore).toISOString().slice(0, 10)}`,
      expiration: new Date(Date.parse(certificate.validTo)).toISOString(),
    });

    expect(privateKeyPem).toMatch(/^-----BEGIN PRIVATE KEY-----\n[A-Za-z0-9+/=\n]+\n-----END PRIVATE KEY-----\n$/);
    const publicOfPrivate = createPublicKey(createPrivateKey(privateKeyPem));
    expect(publicOfPrivate.equals(certificate.publicKey)).toBe(true);

    const now = Date.now();
    const client = makeClient('billing', [{ ...secret, expiresAt: Date.parse(secret.expiration) }]);
    const validator = createAssertionValidator(makeDeps({ clients: [client], now: () => now }));
    const assertion = await new SignJWT({ jti: `t-${alg}` })
      .setProtectedHeader({ alg, typ: 'client-authentication+jwt' })
      .setIssuer('billing')
      .setSubject('billing')
      .setAudience(ISSUER)
      .setIssuedAt(Math.floor(now / 1000))
      .setExpirationTime(Math.floor(now / 1000) + 120)
      .sign(await importPKCS8(privateKeyPem, alg));
    expect(await validator.validate(contextFor(client, assertion))).toEqual({ success: true, assertionAudience: 'issuer' });
  });

  it('is valid for the given number of days', async () => {
    const { certificatePem, secret } = await createClientKey({ clientId: 'c', alg: 'ES256', days: 30 });
    const certificate = new X509Certificate(certificatePem);
    expect(Date.parse(certificate.validTo) - Date.parse(certificate.validFrom)).toBe(30 * DAY);
    expect(secret.expiration).toBe(new Date(Date.parse(certificate.validTo)).toISOString());
  });

  it('escapes the client id in the subject', async () => {
    const { certificatePem } = await createClientKey({ clientId: 'billing,eu=1', alg: 'EdDSA' });
    expect(new X509Certificate(certificatePem).subject).toBe('CN=billing\\,eu=1');
  });

  it('makes a fresh key and serial each time', async () => {
    const [a, b] = await Promise.all([createClientKey({ clientId: 'c', alg: 'EdDSA' }), createClientKey({ clientId: 'c', alg: 'EdDSA' })]);
    expect(a.privateKeyPem).not.toBe(b.privateKeyPem);
    expect(new X509Certificate(a.certificatePem).serialNumber).not.toBe(new X509Certificate(b.certificatePem).serialNumber);
  });

  it.each([
    [{ clientId: '', alg: 'ES256' }, 'clientId: expected a non-empty client id'],
    [{ clientId: 'c', alg: 'ES256', days: 0 }, 'days: expected a whole number from 1 to 36500, found 0'],
    [{ clientId: 'c', alg: 'ES256', days: 1.5 }, 'days: expected a whole number from 1 to 36500, found 1.5'],
    [{ clientId: 'c', alg: 'HS256' }, 'alg: expected one of RS256, PS256, ES256, EdDSA, found HS256'],
  ])('rejects %j', async (opts, message) => {
    await expect(createClientKey(opts as Parameters<typeof createClientKey>[0])).rejects.toThrow(new RangeError(message));
  });
});
