/**
 * `svc create-client-key`: a key pair and a self-signed certificate for a `private_key_jwt`
 * client. The certificate goes into the client's `clientSecrets`; the private key stays with
 * the client.
 *
 * @example
 * const { privateKeyPem, secret } = await createClientKey({ clientId: 'billing', alg: 'ES256' });
 * // clients: [{ clientId: 'billing', clientSecrets: [secret], ... }]
 */
import { randomBytes, webcrypto } from 'node:crypto';
import type * as X509 from '@peculiar/x509';

// The tsconfig has no DOM lib: Web Crypto types come from node:crypto.
type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;
type Algorithm = webcrypto.Algorithm;

export type ClientKeyAlgorithm = 'RS256' | 'ES256' | 'EdDSA' | 'PS256';

export interface ClientKey {
  /** PKCS#8 PEM: give it to the client, never to the service. */
  privateKeyPem: string;
  certificatePem: string;
  /** A secret definition for `clientSecrets`; `expiration` is the certificate's `notAfter`. */
  secret: { type: 'X509CertificateBase64'; value: string; description: string; expiration: string };
}

const keyAlgorithms: Record<ClientKeyAlgorithm, webcrypto.RsaHashedKeyGenParams | webcrypto.EcKeyGenParams | Algorithm> = {
  RS256: { name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' },
  PS256: { name: 'RSA-PSS', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' },
  ES256: { name: 'ECDSA', namedCurve: 'P-256' },
  EdDSA: { name: 'Ed25519' },
};

export async function generateClientKeyPair(alg: ClientKeyAlgorithm): Promise<CryptoKeyPair> {
  return (await webcrypto.subtle.generateKey(keyAlgorithms[alg], true, ['sign', 'verify'])) as CryptoKeyPair;
}

/**
 * @peculiar/x509 2.x needs the Reflect metadata API (through tsyringe) and throws on import
 * without it. The service has no polyfill dependency, so a minimal one is installed here when
 * none is present; importing `reflect-metadata` first would make it a no-op.
 */
function ensureReflectMetadata(): void {
  type MetadataReflect = typeof Reflect & Record<string, unknown>;
  const reflect = Reflect as MetadataReflect;
  if (typeof reflect['getMetadata'] === 'function') return;
  const store = new WeakMap<object, Map<unknown, unknown>>();
  const own = (target: object, create: boolean) => {
    let map = store.get(target);
    if (map === undefined && create) store.set(target, (map = new Map()));
    return map;
  };
  const find = (key: unknown, target: object | null): unknown => {
    for (let o = target; o !== null; o = Object.getPrototypeOf(o) as object | null) {
      const map = own(o, false);
      if (map?.has(key)) return map.get(key);
    }
    return undefined;
  };
  Object.assign(reflect, {
    defineMetadata: (key: unknown, value: unknown, target: object) => void own(target, true)!.set(key, value),
    getOwnMetadata: (key: unknown, target: object) => own(target, false)?.get(key),
    getMetadata: (key: unknown, target: object) => find(key, target),
    hasMetadata: (key: unknown, target: object) => find(key, target) !== undefined,
    metadata: (key: unknown, value: unknown) => (target: object) => void own(target, true)!.set(key, value),
  });
}

let x509: Promise<typeof X509> | undefined;

/** @peculiar/x509 with the Reflect metadata it needs and node:crypto as its provider (tests make CA chains with it too). */
export function loadX509(): Promise<typeof X509> {
  ensureReflectMetadata();
  return (x509 ??= import('@peculiar/x509').then((module) => {
    module.cryptoProvider.set(webcrypto as unknown as Parameters<typeof module.cryptoProvider.set>[0]);
    return module;
  }));
}

/** The certificate's signature algorithm follows the key: SHA-256 for RSA and P-256, SHA-384/512 for larger curves. */
function signingAlgorithm(key: CryptoKey): Algorithm | webcrypto.EcdsaParams | webcrypto.RsaPssParams {
  const algorithm = key.algorithm as Partial<webcrypto.RsaHashedKeyAlgorithm & webcrypto.EcKeyAlgorithm> & Algorithm;
  switch (algorithm.name) {
    case 'RSA-PSS': {
      const hash = algorithm.hash?.name ?? 'SHA-256';
      return { name: 'RSA-PSS', saltLength: Number(hash.slice(4)) / 8 }; // RFC 7518 §3.5: salt = hash size
    }
    case 'ECDSA': {
      const hashes: Record<string, string> = { 'P-384': 'SHA-384', 'P-521': 'SHA-512' };
      return { name: 'ECDSA', hash: hashes[algorithm.namedCurve ?? ''] ?? 'SHA-256' };
    }
    default:
      return algorithm;
  }
}

/** A self-signed end-entity certificate (CN=`commonName`, digitalSignature only), as DER. */
export async function createSelfSignedCertificate(opts: {
  keys: CryptoKeyPair;
  commonName: string;
  notBefore: Date;
  notAfter: Date;
}): Promise<Uint8Array> {
  const lib = await loadX509();
  const serial = randomBytes(16);
  serial[0]! &= 0x7f; // RFC 5280 §4.1.2.2: a positive integer
  const certificate = await lib.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial.toString('hex'),
    name: [{ CN: [opts.commonName] }],
    notBefore: opts.notBefore,
    notAfter: opts.notAfter,
    keys: opts.keys,
    signingAlgorithm: signingAlgorithm(opts.keys.privateKey),
    extensions: [
      new lib.BasicConstraintsExtension(false, undefined, true),
      new lib.KeyUsagesExtension(lib.KeyUsageFlags.digitalSignature, true),
    ],
  });
  return new Uint8Array(certificate.rawData);
}

function pem(der: Uint8Array, label: string): string {
  const lines = Buffer.from(der).toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

/**
 * Generates a key pair for `alg` and a certificate valid from now for `days` (default 365).
 * Throws a RangeError for an empty client id or a `days` that is not a positive whole number.
 */
export async function createClientKey(opts: { clientId: string; alg: ClientKeyAlgorithm; days?: number }): Promise<ClientKey> {
  const { clientId, alg, days = 365 } = opts;
  if (clientId === '') throw new RangeError('clientId: expected a non-empty client id');
  if (!Object.hasOwn(keyAlgorithms, alg)) throw new RangeError(`alg: expected one of ${Object.keys(keyAlgorithms).join(', ')}, found ${String(alg)}`);
  if (!Number.isInteger(days) || days < 1 || days > 36500) throw new RangeError(`days: expected a whole number from 1 to 36500, found ${days}`);

  const keys = await generateClientKeyPair(alg);
  // X.509 times have whole seconds; start at the current second so the certificate is valid at once.
  const notBefore = new Date(Math.floor(Date.now() / 1000) * 1000);
  const notAfter = new Date(notBefore.getTime() + days * 86_400_000);
  const der = await createSelfSignedCertificate({ keys, commonName: clientId, notBefore, notAfter });
  const pkcs8 = new Uint8Array(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
  return {
    privateKeyPem: pem(pkcs8, 'PRIVATE KEY'),
    certificatePem: pem(der, 'CERTIFICATE'),
    secret: {
      type: 'X509CertificateBase64',
      value: Buffer.from(der).toString('base64'),
      description: `${alg} key of ${clientId}, created ${notBefore.toISOString().slice(0, 10)}`,
      expiration: notAfter.toISOString(),
    },
  };
}
