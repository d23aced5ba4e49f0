/**
 * Certificates made at test time for mutual TLS: a CA that issues client certificates, the
 * service's own server certificate (SAN 127.0.0.1 and localhost, from a CA of its own), client
 * certificates issued by the CA or by a stranger's CA, self-signed ones, expired ones. P-256
 * keys: fast to make. Each comes as PEM (files for curl, nginx, Node's TLS) and as the values a
 * config's secrets hold.
 */
import { X509Certificate, createHash, randomBytes, webcrypto } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadX509 } from '../../src/cli/create-client-key.js';

type CryptoKeyPair = webcrypto.CryptoKeyPair;

export interface Issued {
  readonly certificatePem: string;
  readonly keyPem: string;
  /** base64 DER: an `X509CertificateBase64` secret's value. */
  readonly derBase64: string;
  /** base64url SHA-256 of the DER: `x5t#S256`, an `X509Thumbprint` secret's value. */
  readonly thumbprint: string;
  /** The same thumbprint as `openssl x509 -fingerprint -sha256` prints it: `AB:CD:...`. */
  readonly thumbprintHex: string;
  readonly keys: CryptoKeyPair;
  readonly subject: string;
}

const day = 86_400_000;
const algorithm = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const signingAlgorithm = { name: 'ECDSA', hash: 'SHA-256' };

function pem(der: ArrayBuffer | Uint8Array, label: string): string {
  const lines = Buffer.from(der as ArrayBuffer).toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

function serial(): string {
  const bytes = randomBytes(16);
  bytes[0]! &= 0x7f;
  return bytes.toString('hex');
}

async function described(rawData: ArrayBuffer, keys: CryptoKeyPair, subject: string): Promise<Issued> {
  const der = Buffer.from(rawData);
  const hex = createHash('sha256').update(der).digest('hex').toUpperCase();
  return {
    certificatePem: pem(der, 'CERTIFICATE'),
    keyPem: pem(new Uint8Array(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)), 'PRIVATE KEY'),
    derBase64: der.toString('base64'),
    thumbprint: createHash('sha256').update(der).digest('base64url'),
    thumbprintHex: hex.match(/../g)!.join(':'),
    keys,
    subject,
  };
}

export interface Validity {
  readonly notBefore?: Date;
  readonly notAfter?: Date;
}

const window = (v: Validity): { notBefore: Date; notAfter: Date } => ({
  // X.509 times have whole seconds; a minute back so the certificate is valid at once.
  notBefore: v.notBefore ?? new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000),
  notAfter: v.notAfter ?? new Date(Date.now() + 30 * day),
});

/** A CA certificate (CA:TRUE, keyCertSign) named `subject`, e.g. `CN=Test Client CA, O=Example`. */
export async function makeCa(subject: string, validity: Validity = {}): Promise<Issued> {
  const x509 = await loadX509();
  const keys = (await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify'])) as CryptoKeyPair;
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: subject,
    ...window(validity),
    keys,
    signingAlgorithm,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return described(certificate.rawData, keys, subject);
}

/** An end-entity certificate for `subject` issued by `ca`; `serverNames` makes it a server certificate. */
export async function issue(ca: Issued, subject: string, options: Validity & { serverNames?: readonly string[] } = {}): Promise<Issued> {
  const x509 = await loadX509();
  const keys = (await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify'])) as CryptoKeyPair;
  const names = options.serverNames ?? [];
  const certificate = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject,
    issuer: new x509.X509Certificate(ca.certificatePem).subject,
    ...window(options),
    publicKey: keys.publicKey,
    signingKey: ca.keys.privateKey,
    signingAlgorithm,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([names.length > 0 ? x509.ExtendedKeyUsage.serverAuth : x509.ExtendedKeyUsage.clientAuth]),
      await x509.AuthorityKeyIdentifierExtension.create(ca.keys.publicKey),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      ...(names.length > 0
        ? [new x509.SubjectAlternativeNameExtension(names.map((n) => ({ type: /^[\d.]+$/.test(n) ? ('ip' as const) : ('dns' as const), value: n })))]
        : []),
    ],
  });
  return described(certificate.rawData, keys, subject);
}

/** A self-signed end-entity certificate (`self_signed_tls_client_auth`). */
export async function makeSelfSigned(subject: string, validity: Validity = {}): Promise<Issued> {
  const x509 = await loadX509();
  const keys = (await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify'])) as CryptoKeyPair;
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: subject,
    ...window(validity),
    keys,
    signingAlgorithm,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
    ],
  });
  return described(certificate.rawData, keys, subject);
}

/** Node's own parse of a certificate, as the host hands it to parsers. */
export const nodeCertificate = (issued: Issued): X509Certificate => new X509Certificate(issued.certificatePem);

/** Every certificate the mutual TLS tests use, made once per test file. */
export interface Pki {
  readonly dir: string;
  readonly serverCa: Issued;
  readonly server: Issued;
  readonly clientCa: Issued;
  /** Issued by `clientCa`: `CN=partner, O=Example Partner, C=DE`. */
  readonly partner: Issued;
  /** Issued by `clientCa`, with another subject. */
  readonly stranger: Issued;
  /** Issued by another CA, with the partner's subject. */
  readonly impostor: Issued;
  /** Issued by `clientCa`, expired yesterday. */
  readonly expired: Issued;
  readonly selfSigned: Issued;
  readonly otherSelfSigned: Issued;
  /** Absolute paths of the PEM files by name: `server.pem`, `server.key`, `client-ca.pem`, `<name>.pem`, `<name>.key`. */
  file(name: string): string;
}

export const partnerSubject = 'CN=partner, O=Example Partner, C=DE';

export async function makePki(): Promise<Pki> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-mtls-'));
  const serverCa = await makeCa('CN=Test Server CA');
  const clientCa = await makeCa('CN=Test Client CA, O=Example');
  const otherCa = await makeCa('CN=Other CA, O=Elsewhere');
  const [server, partner, stranger, impostor, expired, selfSigned, otherSelfSigned] = await Promise.all([
    issue(serverCa, 'CN=localhost', { serverNames: ['127.0.0.1', 'localhost'] }),
    issue(clientCa, partnerSubject),
    issue(clientCa, 'CN=stranger, O=Example Partner, C=DE'),
    issue(otherCa, partnerSubject),
    issue(clientCa, partnerSubject, { notBefore: new Date(Date.now() - 30 * day), notAfter: new Date(Date.now() - day) }),
    makeSelfSigned('CN=native-app'),
    makeSelfSigned('CN=native-app'),
  ]);
  const all = { server, partner, stranger, impostor, expired, selfSigned, otherSelfSigned } as Record<string, Issued>;
  for (const [name, issued] of Object.entries(all)) {
    writeFileSync(join(dir, `${name}.pem`), issued.certificatePem);
    writeFileSync(join(dir, `${name}.key`), issued.keyPem, { mode: 0o600 });
  }
  writeFileSync(join(dir, 'server-ca.pem'), serverCa.certificatePem);
  writeFileSync(join(dir, 'client-ca.pem'), clientCa.certificatePem);
  return { dir, serverCa, server, clientCa, partner, stranger, impostor, expired, selfSigned, otherSelfSigned, file: (name) => join(dir, name) };
}
