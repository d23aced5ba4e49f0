/**
 * An issuer's JWK Set (RFC 7517 §5) as verification keys. Keys not meant for signatures
 * (`use: "enc"`, a SPIFFE bundle's `x509-svid` keys) and symmetric ones are skipped: an HMAC
 * "keyed" with a published key would let anyone forge tokens (the key-confusion attack).
 */
import { createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import { isJwsAlgorithm, type JwsAlgorithm } from 'svc/sdk';

export interface IssuerKey {
  readonly kid: string | undefined;
  readonly key: KeyObject;
  readonly kty: 'RSA' | 'EC' | 'OKP';
  readonly crv: string | undefined;
  /** The JWK's own `alg`: when set, the only algorithm it verifies (RFC 7517 §4.4). */
  readonly alg: JwsAlgorithm | undefined;
}

const ecCurve: Readonly<Record<string, string>> = { ES256: 'P-256', ES384: 'P-384', ES512: 'P-521' };

/** RFC 7518 §3.3–3.5 and RFC 8037 §3.1. */
export function keyFitsAlgorithm(key: IssuerKey, alg: JwsAlgorithm): boolean {
  if (key.alg !== undefined && key.alg !== alg) return false;
  if (alg.startsWith('RS') || alg.startsWith('PS')) return key.kty === 'RSA';
  if (alg.startsWith('ES')) return key.kty === 'EC' && key.crv === ecCurve[alg];
  return key.kty === 'OKP' && key.crv === 'Ed25519';
}

const privateMembers = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k', 'priv'];
/** `sig` (RFC 7517 §4.2) and a SPIFFE bundle's `jwt-svid` (SPIFFE Trust Domain and Bundle §4.2.2). */
const signatureUses = [undefined, 'sig', 'jwt-svid'];

/** Throws a message for a document that is not a JWK Set or holds a private key; returns the keys usable with `algorithms`. */
export function parseJwks(raw: unknown, algorithms: readonly JwsAlgorithm[]): IssuerKey[] {
  const keys = typeof raw === 'object' && raw !== null ? (raw as { keys?: unknown }).keys : undefined;
  if (!Array.isArray(keys)) throw new Error('not a JWK Set (an object with a "keys" list)');
  const usable: IssuerKey[] = [];
  keys.forEach((jwk: unknown, index) => {
    if (typeof jwk !== 'object' || jwk === null || Array.isArray(jwk)) throw new Error(`keys[${index}] is not an object`);
    const { kty, kid, alg, use } = jwk as Record<string, unknown>;
    const secret = privateMembers.find((member) => member in jwk);
    if (secret !== undefined && kty !== 'oct') throw new Error(`keys[${index}] is a private key (has "${secret}"); publish the public key only`);
    if (kty !== 'RSA' && kty !== 'EC' && kty !== 'OKP') return;
    if (!signatureUses.includes(use as string | undefined)) return;
    if (alg !== undefined && !isJwsAlgorithm(alg)) return;
    if (kid !== undefined && typeof kid !== 'string') throw new Error(`keys[${index}].kid is not a string`);
    let key: KeyObject;
    try {
      key = createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' });
    } catch (error) {
      throw new Error(`keys[${index}] is not a valid public JWK (${(error as Error).message})`);
    }
    const crv = (jwk as { crv?: unknown }).crv;
    const shaped: IssuerKey = Object.freeze({ kid, key, kty, crv: typeof crv === 'string' ? crv : undefined, alg });
    if (algorithms.some((a) => keyFitsAlgorithm(shaped, a))) usable.push(shaped);
  });
  return usable;
}
