/** A signing key as the service uses it, imported once from its stored or configured form. */
import { createPrivateKey, createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import { importJWK, type CryptoKey, type JWK } from 'jose';
import { signCompactJws, signCompactJwsWith, type AsyncCompactSigner, type CompactSigner } from '../../sdk/jws.js';
import type { Tracing } from '../../tracing/tracing.js';
import type { SigningKeyRecord } from '../../store/store.js';
import type { KeyProtector } from './key-protection.js';
import type { SigningThreads } from './signing-threads.js';

export interface SigningKey {
  readonly kid: string;
  readonly alg: string;
  readonly privateKey: CryptoKey;
  /** Signs a JWS compact serialization with this key, synchronously (the access-token hot path). */
  readonly sign: CompactSigner;
  /** The same on a signing thread, when `signing.threads` is set; see `signToken`. */
  readonly signOnThread: AsyncCompactSigner | undefined;
  /** The private key for node:crypto, which the signing threads are given. */
  readonly signingKeyObject: KeyObject;
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
  const signingKeyObject = createPrivateKey({ key: privateJwk as JsonWebKey, format: 'jwk' });
  return {
    kid,
    alg,
    privateKey: (await importJWK(privateJwk, alg)) as CryptoKey,
    publicKey: (await importJWK(publicJwk, alg)) as CryptoKey,
    publicJwk,
    verifyKey: createPublicKey({ key: publicJwk as JsonWebKey, format: 'jwk' }),
    signingKeyObject,
    sign: signCompactJws(signingKeyObject, alg),
    signOnThread: undefined,
  };
}

/** The same key, its signatures made on the signing threads (`signing.threads`). */
export function signingOnThreads(key: SigningKey, threads: SigningThreads): SigningKey {
  threads.add(key.kid, key.alg, key.signingKeyObject);
  return { ...key, signOnThread: signCompactJwsWith((input) => threads.sign(key.kid, input)) };
}

/**
 * A token signed with `key` in a span named `what`: on a signing thread when the key has one (a
 * promise), else synchronously on the event loop, so the default path awaits nothing.
 */
export function signToken(tracing: Tracing, what: string, key: SigningKey, header: { alg: string } & Record<string, string>, payload: object): string | Promise<string> {
  const attributes = { 'jws.alg': header.alg };
  const { signOnThread } = key;
  return signOnThread
    ? tracing.span(what, attributes, () => signOnThread(header, payload))
    : tracing.spanSync(what, attributes, () => key.sign(header, payload));
}

/** A stored (managed) key, opened with the key-encryption keys. */
export function signingKeyFromRecord(record: SigningKeyRecord, protector: KeyProtector): Promise<SigningKey> {
  return signingKeyOf(record.kid, record.alg, JSON.parse(protector.open(record)) as JWK);
}
