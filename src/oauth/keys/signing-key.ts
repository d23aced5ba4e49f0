/** A signing key as the service uses it, imported once from its stored or configured form. */
import { createPrivateKey, createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import { importJWK, type CryptoKey, type JWK } from 'jose';
import { signCompactJws, type CompactSigner } from '../../sdk/jws.js';
import type { SigningKeyRecord } from '../../store/store.js';
import type { KeyProtector } from './key-protection.js';

export interface SigningKey {
  readonly kid: string;
  readonly alg: string;
  readonly privateKey: CryptoKey;
  /** Signs a JWS compact serialization with this key, synchronously (the access-token hot path). */
  readonly sign: CompactSigner;
  readonly publicKey: CryptoKey;
  /** The public key for node:crypto's synchronous verify (the service's own tokens coming back). */
  readonly verifyKey: KeyObject;
  readonly publicJwk: JWK;
}

/**
 * A key from its private JWK: jose keys for JWKS and ID tokens, a node:crypto signer for access
 * tokens. `publicPart` is the public JWK to publish; without it, the private JWK's public members.
 */
export async function signingKeyOf(kid: string, alg: string, privateJwk: JWK, publicPart?: JWK): Promise<SigningKey> {
  const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...pub } = privateJwk;
  const publicJwk: JWK = { ...(publicPart ?? pub), kid, alg, use: 'sig' };
  return {
    kid,
    alg,
    privateKey: (await importJWK(privateJwk, alg)) as CryptoKey,
    publicKey: (await importJWK(publicJwk, alg)) as CryptoKey,
    publicJwk,
    verifyKey: createPublicKey({ key: publicJwk as JsonWebKey, format: 'jwk' }),
    sign: signCompactJws(createPrivateKey({ key: privateJwk as JsonWebKey, format: 'jwk' }), alg),
  };
}

/** A stored (managed) key, opened with the key-encryption keys. */
export function signingKeyFromRecord(record: SigningKeyRecord, protector: KeyProtector): Promise<SigningKey> {
  return signingKeyOf(record.kid, record.alg, JSON.parse(protector.open(record)) as JWK);
}
