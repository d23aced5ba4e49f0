/**
 * The host's reading of client certificates: the proxy header's URL-encoded PEM, and whether a
 * configured CA issued a certificate (its signature, and the CA's own validity).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { certificateFromHeader, describeCertificate, issuedByOneOf } from '../../src/http/client-certificate.js';
import { issue, makeCa, makePki, nodeCertificate, type Pki } from '../support/certificates.js';

let pki: Pki;
beforeAll(async () => {
  pki = await makePki();
});

describe('the proxy certificate header', () => {
  it('reads URL-encoded PEM as nginx writes it ($ssl_client_escaped_cert), and plain PEM', () => {
    expect(certificateFromHeader(encodeURIComponent(pki.partner.certificatePem))?.fingerprint256).toBe(nodeCertificate(pki.partner).fingerprint256);
    expect(certificateFromHeader(pki.partner.certificatePem)?.fingerprint256).toBe(nodeCertificate(pki.partner).fingerprint256);
  });

  it('is no certificate when empty (nginx without a client certificate)', () => {
    expect(certificateFromHeader('')).toBeUndefined();
  });

  it('throws for bad percent-encoding, text that is no PEM, or an oversized value', () => {
    expect(() => certificateFromHeader('%E0%A4%A')).toThrow('bad percent-encoding');
    expect(() => certificateFromHeader('hello')).toThrow('no PEM certificate');
    expect(() => certificateFromHeader('x'.repeat(16 * 1024 + 1))).toThrow('longer than 16384 characters');
  });
});

describe('issued by a configured CA', () => {
  const now = Date.now();

  it('is true for the CA that signed the certificate, false for another CA or a self-signed certificate', () => {
    const cas = [nodeCertificate(pki.clientCa)];
    expect(issuedByOneOf(nodeCertificate(pki.partner), cas, now)).toBe(true);
    expect(issuedByOneOf(nodeCertificate(pki.impostor), cas, now)).toBe(false);
    expect(issuedByOneOf(nodeCertificate(pki.selfSigned), cas, now)).toBe(false);
    expect(issuedByOneOf(nodeCertificate(pki.partner), [], now)).toBe(false);
  });

  it('is false once the CA itself has expired', async () => {
    const lapsed = await makeCa('CN=Lapsed CA', { notBefore: new Date(now - 10 * 86_400_000), notAfter: new Date(now - 86_400_000) });
    const leaf = await issue(lapsed, 'CN=leaf');
    expect(issuedByOneOf(nodeCertificate(leaf), [nodeCertificate(lapsed)], now)).toBe(false);
    expect(issuedByOneOf(nodeCertificate(leaf), [nodeCertificate(lapsed)], now - 2 * 86_400_000)).toBe(true);
  });

  it('is false for a certificate naming the CA as issuer but signed by another key', async () => {
    // Same issuer name, another key: the key identifiers and the signature tell them apart.
    const twin = await makeCa('CN=Test Client CA, O=Example');
    const forged = await issue(twin, 'CN=partner, O=Example Partner, C=DE');
    expect(issuedByOneOf(nodeCertificate(forged), [nodeCertificate(pki.clientCa)], now)).toBe(false);
  });

  it('describes a certificate with its x5t#S256 thumbprint (base64url SHA-256 of the DER)', () => {
    const described = describeCertificate(nodeCertificate(pki.partner), { clientCas: [nodeCertificate(pki.clientCa)], clock: { now: () => now } }, 'proxy');
    expect(described).toMatchObject({ thumbprint: pki.partner.thumbprint, issuedByTrustedCa: true, source: 'proxy' });
    expect(Object.isFrozen(described)).toBe(true);
  });
});
