/**
 * Turns secret definitions (`X509CertificateBase64`, `JsonWebKey`) into verification keys, once:
 * every client's and API resource's secrets are parsed when the validator is created, so a bad
 * secret stops start-up and a request never parses a certificate.
 */
import { X509Certificate, createHash, createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import type { PluginConfig, Secret } from 'svc/sdk';
import { describeKey, isSupportedAlgorithm, keyFitsAlgorithm, type Curve, type KeyShape } from './algorithms.js';

export const CERTIFICATE_SECRET = 'X509CertificateBase64';
export const JWK_SECRET = 'JsonWebKey';
export const KEY_SECRET_TYPES: readonly string[] = [CERTIFICATE_SECRET, JWK_SECRET];

export interface VerificationKey extends KeyShape {
  readonly key: KeyObject;
  readonly source: 'certificate' | 'jwk';
  /**
   * Header `kid` values that select this key: a JWK's own `kid`, its RFC 7638 thumbprint, and for
   * a certificate the base64url SHA-1 and SHA-256 of its DER (`x5t`, `x5t#S256`).
   */
  readonly kids: ReadonlySet<string>;
  /** Certificate validity, epoch milliseconds; `undefined` for a JWK. */
  readonly notBefore: number | undefined;
  readonly notAfter: number | undefined;
}

/** A key together with the name of the secret it came from, for log reasons. */
export interface CandidateKey {
  readonly key: VerificationKey;
  readonly label: string;
}

const nistCurves: Readonly<Record<string, Curve>> = { prime256v1: 'P-256', secp384r1: 'P-384', secp521r1: 'P-521' };

function shapeOf(key: KeyObject): Omit<KeyShape, 'alg'> {
  const details = key.asymmetricKeyDetails ?? {};
  switch (key.asymmetricKeyType) {
    case 'rsa':
    case 'rsa-pss':
      if ((details.modulusLength ?? 0) < 2048) {
        throw new Error(`RSA key of ${details.modulusLength} bits; at least 2048 are required`);
      }
      return { kty: 'RSA', crv: undefined, pssOnly: key.asymmetricKeyType === 'rsa-pss' };
    case 'ec': {
      const crv = nistCurves[details.namedCurve ?? ''];
      if (crv === undefined) throw new Error(`EC curve ${details.namedCurve} is not supported; use P-256, P-384 or P-521`);
      return { kty: 'EC', crv, pssOnly: false };
    }
    case 'ed25519':
      return { kty: 'OKP', crv: 'Ed25519', pssOnly: false };
    default:
      throw new Error(`${key.asymmetricKeyType} keys are not supported; use RSA, EC or Ed25519`);
  }
}

/** RFC 7638 §3.2: the required members, in lexicographic order. */
function jwkThumbprint(key: KeyObject): string {
  const { crv, e, kty, n, x, y } = key.export({ format: 'jwk' });
  const members = kty === 'RSA' ? { e, kty, n } : kty === 'EC' ? { crv, kty, x, y } : { crv, kty, x };
  return createHash('sha256').update(JSON.stringify(members)).digest('base64url');
}

function fromCertificate(value: string): VerificationKey {
  if (value.includes('-----BEGIN')) {
    throw new Error('found PEM armour; give the base64 DER only (the lines between BEGIN and END, joined)');
  }
  const base64 = value.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(base64)) throw new Error('not base64');
  const der = Buffer.from(base64, 'base64');
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(der);
  } catch (error) {
    throw new Error(`not a DER X.509 certificate (${(error as Error).message})`);
  }
  const notBefore = Date.parse(certificate.validFrom);
  const notAfter = Date.parse(certificate.validTo);
  if (!Number.isFinite(notBefore) || !Number.isFinite(notAfter)) throw new Error('unreadable validity dates');
  const key = certificate.publicKey;
  return Object.freeze({
    ...shapeOf(key),
    alg: undefined,
    key,
    source: 'certificate',
    kids: new Set([
      createHash('sha1').update(der).digest('base64url'),
      createHash('sha256').update(der).digest('base64url'),
      jwkThumbprint(key),
    ]),
    notBefore,
    notAfter,
  });
}

const privateMembers = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k', 'priv'];

function fromJwk(value: string): VerificationKey {
  let jwk: unknown;
  try {
    jwk = JSON.parse(value);
  } catch {
    throw new Error('not JSON text');
  }
  if (typeof jwk !== 'object' || jwk === null || Array.isArray(jwk)) throw new Error('not a JSON object');
  const { kty, kid, alg, use, key_ops: keyOps } = jwk as Record<string, unknown>;
  if (kty === 'oct') throw new Error('a symmetric "oct" key; only public keys can verify assertions');
  const secretMember = privateMembers.find((member) => member in jwk);
  if (secretMember !== undefined) {
    throw new Error(`a private JWK (has "${secretMember}"); configure the public key only`);
  }
  if (kid !== undefined && typeof kid !== 'string') throw new Error('"kid" is not a string');
  if (use !== undefined && use !== 'sig') throw new Error(`"use" is ${JSON.stringify(use)}; expected "sig"`);
  if (keyOps !== undefined && !(Array.isArray(keyOps) && keyOps.includes('verify'))) {
    throw new Error('"key_ops" does not include "verify"');
  }
  if (alg !== undefined && !isSupportedAlgorithm(alg)) {
    throw new Error(`"alg" ${JSON.stringify(alg)} is not a signature algorithm this plugin accepts`);
  }
  let key: KeyObject;
  try {
    key = createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' });
  } catch (error) {
    throw new Error(`not a valid public JWK (${(error as Error).message})`);
  }
  const shape: KeyShape = { ...shapeOf(key), alg };
  if (alg !== undefined && !keyFitsAlgorithm(shape, alg)) throw new Error(`"alg" ${alg} does not fit this ${describeKey({ ...shape, alg: undefined })} key`);
  const thumbprint = jwkThumbprint(key);
  return Object.freeze({
    ...shape,
    key,
    source: 'jwk',
    kids: new Set(kid === undefined ? [thumbprint] : [kid, thumbprint]),
    notBefore: undefined,
    notAfter: undefined,
  });
}

function parseSecret(secret: Secret): VerificationKey {
  return secret.type === CERTIFICATE_SECRET ? fromCertificate(secret.value) : fromJwk(secret.value);
}

/**
 * Verification keys by secret. The config's are parsed at start-up (keyed by type and value too,
 * so copies of a config Secret hit). A store's client (the database, a plugin's) arrives as a
 * frozen object that lives until the store reloads: its secrets are parsed on first use and kept
 * by object, failures included, so a stored key costs one parse per loaded copy and a replaced
 * copy is forgotten with it.
 */
export class ClientKeys {
  readonly #keys = new Map<string, VerificationKey>();
  readonly #bySecret = new WeakMap<Secret, VerificationKey | Error>();

  /**
   * The keys of `config`, parsed once however many of the plugin's parts ask: every factory of a
   * plugin gets the same frozen `config`, so the assertion validator and the request object
   * verifier share one set.
   */
  static forConfig(config: Pick<PluginConfig, 'clients' | 'apiResources'>): ClientKeys {
    let keys = parsedConfigs.get(config);
    if (keys === undefined) {
      keys = ClientKeys.fromConfig(config);
      parsedConfigs.set(config, keys);
    }
    return keys;
  }

  /** Parses every key secret of every client and API resource; throws naming the first bad one. */
  static fromConfig(config: Pick<PluginConfig, 'clients' | 'apiResources'>): ClientKeys {
    const keys = new ClientKeys();
    const holders = [
      ...config.clients.map((c) => ({ name: `client "${c.clientId}" clientSecrets`, secrets: c.clientSecrets })),
      ...config.apiResources.map((r) => ({ name: `apiResource "${r.name}" secrets`, secrets: r.secrets })),
    ];
    for (const holder of holders) {
      holder.secrets.forEach((secret, index) => {
        if (!KEY_SECRET_TYPES.includes(secret.type)) return;
        try {
          const key = parseSecret(secret);
          keys.#keys.set(textKey(secret), key);
          if (Object.isFrozen(secret)) keys.#bySecret.set(secret, key);
        } catch (error) {
          throw new Error(`plugin private-key-jwt: ${holder.name}[${index}] (${secret.type}): ${(error as Error).message}`, {
            cause: error,
          });
        }
      });
    }
    return keys;
  }

  /** The secret's key; throws the parse error (remembered too) for one that does not parse. */
  #load(secret: Secret): VerificationKey {
    let found = this.#bySecret.get(secret) ?? this.#keys.get(textKey(secret));
    if (found === undefined) {
      try {
        found = parseSecret(secret);
      } catch (error) {
        found = error as Error;
      }
    }
    // A secret that is not frozen could change under the cache: it is parsed on every use.
    if (Object.isFrozen(secret)) this.#bySecret.set(secret, found);
    if (found instanceof Error) throw found;
    return found;
  }

  /**
   * The keys of a holder's secrets. A secret not seen at start-up (a client from a store) is
   * parsed on first use and cached with its object; one that does not parse is reported, not used.
   */
  keysFor(secrets: readonly Secret[]): { keys: CandidateKey[]; unusable: string[] } {
    const keys: CandidateKey[] = [];
    const unusable: string[] = [];
    secrets.forEach((secret, index) => {
      if (!KEY_SECRET_TYPES.includes(secret.type)) return;
      const label = secret.description === undefined ? `secret #${index}` : `secret "${secret.description}"`;
      try {
        keys.push({ key: this.#load(secret), label });
      } catch (error) {
        unusable.push(`${label}: ${(error as Error).message}`);
      }
    });
    return { keys, unusable };
  }
}

const parsedConfigs = new WeakMap<object, ClientKeys>();

const textKey = (secret: Secret): string => `${secret.type}\n${secret.value}`;
