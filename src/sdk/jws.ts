/**
 * JWS compact serialization (RFC 7515 §7.1) with node:crypto's synchronous `sign` and `verify`:
 * one algorithm table for the service's access tokens and for plugins' assertions.
 *
 * jose 6 signs and verifies through WebCrypto, whose async round trip (on libuv's thread pool
 * for RSA and ECDSA) costs about as much as the operation itself on a single core: ES256 signing
 * ~210 µs against ~50 µs here, RS256 verification ~40 µs against ~20 µs (docs/guides/performance.md).
 * This module only signs, splits and checks a signature; what to trust (the accepted algorithms,
 * the key's fit to `alg`) is the caller's to decide first.
 */
import { constants, sign, verify, type KeyObject } from 'node:crypto';
import { derToRs, rsToDer } from './ecdsa-signature.js';

/** The asymmetric JWS algorithms (RFC 7518 §3.3–3.5, RFC 8037 §3.1, RFC 9864 for `Ed25519`); no `HS*`, no `none`. */
export const jwsAlgorithms = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'] as const;

export type JwsAlgorithm = (typeof jwsAlgorithms)[number];

const digest: Readonly<Record<JwsAlgorithm, string | null>> = {
  RS256: 'sha256', RS384: 'sha384', RS512: 'sha512',
  PS256: 'sha256', PS384: 'sha384', PS512: 'sha512',
  ES256: 'sha256', ES384: 'sha384', ES512: 'sha512',
  EdDSA: null, Ed25519: null,
};

// RFC 7518 §3.4: an ECDSA signature is R || S, each the size of the curve's order, not DER.
// node:crypto signs and checks DER, converted to and from R || S by ecdsa-signature.ts (why there).
const ecdsaSignatureBytes: Readonly<Partial<Record<JwsAlgorithm, number>>> = { ES256: 64, ES384: 96, ES512: 132 };

export function isJwsAlgorithm(value: unknown): value is JwsAlgorithm {
  return typeof value === 'string' && Object.hasOwn(digest, value);
}

function keyOptions(alg: JwsAlgorithm, key: KeyObject) {
  // RFC 7518 §3.5: the PSS salt is as long as the hash output.
  if (alg.startsWith('PS')) return { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST };
  return key;
}

/** What node:crypto's `sign(hash, data, options)` takes for `alg` and `key`: plain values, so they can be posted to a worker thread. */
export interface JwsSignatureParameters {
  readonly alg: JwsAlgorithm;
  readonly hash: string | null;
  readonly options: KeyObject | { readonly key: KeyObject; readonly padding?: number; readonly saltLength?: number };
}

export function jwsSignatureParameters(key: KeyObject, alg: string): JwsSignatureParameters {
  if (!isJwsAlgorithm(alg)) throw new Error(`unsupported JWS algorithm ${alg}`);
  return { alg, hash: digest[alg], options: keyOptions(alg, key) };
}

/** The base64url JWS signature of what node:crypto's `sign` made for `alg` (DER for ECDSA, turned into R || S). */
export function jwsSignature(alg: JwsAlgorithm, signature: Buffer): string {
  const size = ecdsaSignatureBytes[alg];
  return (size === undefined ? signature : derToRs(signature, size / 2)).toString('base64url');
}

export type CompactSigner = (header: object, payload: object) => string;
/** The same, with the signature made elsewhere (see `signCompactJwsWith`). */
export type AsyncCompactSigner = (header: object, payload: object) => Promise<string>;

const encode = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url');

/**
 * A signer whose signature is made elsewhere (a signing thread): `signature` gets the JWS signing
 * input and answers the base64url signature.
 */
export function signCompactJwsWith(signature: (signingInput: string) => Promise<string>): AsyncCompactSigner {
  return async (header, payload) => {
    const input = `${encode(header)}.${encode(payload)}`;
    return `${input}.${await signature(input)}`;
  };
}

/**
 * A signer for one key and algorithm, built once. `key` is a node:crypto private key (made from
 * a JWK or PEM, not from a non-extractable CryptoKey).
 *
 * @example
 * const sign = signCompactJws(privateKey, 'ES256');
 * const jwt = sign({ alg: 'ES256', typ: 'JWT' }, { sub: 'client', exp });
 */
export function signCompactJws(key: KeyObject, alg: string): CompactSigner {
  const { alg: algorithm, hash, options } = jwsSignatureParameters(key, alg);
  return (header, payload) => {
    const input = `${encode(header)}.${encode(payload)}`;
    return `${input}.${jwsSignature(algorithm, sign(hash, Buffer.from(input), options))}`;
  };
}

export interface CompactJws {
  /** The JOSE header, a JSON object. */
  readonly header: Readonly<Record<string, unknown>>;
  /** The payload, a JSON object; trusted only once `verifyCompactJws` says so. */
  readonly claims: Readonly<Record<string, unknown>>;
  /** `BASE64URL(header) || '.' || BASE64URL(payload)`, what the signature covers (RFC 7515 §5.2). */
  readonly signingInput: Buffer;
  readonly signature: Buffer;
}

/** Not a compact JWS, or one this reader refuses; the message is fit for the log. */
export class MalformedJws extends Error {
  override readonly name = 'MalformedJws';
}

// RFC 7515 §2: base64url without padding. A length of 4n+1 cannot come from any byte string.
const base64url = /^[A-Za-z0-9_-]+$/;

function decode(part: string, what: string): Buffer {
  if (!base64url.test(part) || part.length % 4 === 1) throw new MalformedJws(`${what} is not base64url`);
  return Buffer.from(part, 'base64url');
}

// RFC 7515 §2 and RFC 7519 §7.2: the header and the claims are UTF-8; bytes that are not are
// refused, not replaced. A leading byte order mark is dropped, as jose (WHATWG TextDecoder) does.
const utf8 = new TextDecoder('utf-8', { fatal: true });

function jsonObject(bytes: Buffer, what: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(utf8.decode(bytes));
  } catch {
    throw new MalformedJws(`${what} is not JSON`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new MalformedJws(`${what} is not a JSON object`);
  return value as Record<string, unknown>;
}

/** The three base64url parts of a compact JWS, split at the dots; nothing decoded. */
export interface CompactJwsParts {
  readonly header: string;
  readonly payload: string;
  readonly signature: string;
  /** `header '.' payload`, what the signature covers. */
  readonly signingInput: string;
}

/** Splits at the dots; decodes nothing. Throws `MalformedJws`. */
export function splitCompactJws(token: string): CompactJwsParts {
  const first = token.indexOf('.');
  const second = token.indexOf('.', first + 1);
  if (first < 0 || second < 0 || token.includes('.', second + 1)) throw new MalformedJws('not three dot-separated parts');
  return { header: token.slice(0, first), payload: token.slice(first + 1, second), signature: token.slice(second + 1), signingInput: token.slice(0, second) };
}

/** Decodes a JOSE header part. Throws `MalformedJws`. */
export function decodeJwsHeader(part: string): Record<string, unknown> {
  const header = jsonObject(decode(part, 'header'), 'header');
  // RFC 7515 §4.1.11: extensions the recipient does not understand make the JWS invalid, and
  // this reader understands none (RFC 7797's unencoded payload has no place in a JWT).
  if (header.crit !== undefined) throw new MalformedJws('header has crit; no extension is understood');
  return header;
}

/**
 * The JWS of `parts` with `header` already decoded: a caller that has met the same header part
 * before (a DPoP client signs every proof with one key) decodes it once. Throws `MalformedJws`.
 */
export function withDecodedHeader(parts: CompactJwsParts, header: Readonly<Record<string, unknown>>): CompactJws {
  return {
    header,
    claims: jsonObject(decode(parts.payload, 'payload'), 'payload'),
    signingInput: Buffer.from(parts.signingInput, 'latin1'),
    // Empty for `alg: none`, which the caller then refuses by name.
    signature: parts.signature === '' ? Buffer.alloc(0) : decode(parts.signature, 'signature'),
  };
}

/** Splits and decodes; verifies nothing. Throws `MalformedJws`. */
export function parseCompactJws(token: string): CompactJws {
  const parts = splitCompactJws(token);
  return withDecodedHeader(parts, decodeJwsHeader(parts.header));
}

/**
 * Whether `key` made the signature under `alg`. The caller has checked that the key fits `alg`;
 * a key node:crypto refuses for it (an RSASSA-PSS key bound to another hash) does not verify.
 */
export function verifyCompactJws(jws: CompactJws, alg: JwsAlgorithm, key: KeyObject): boolean {
  const size = ecdsaSignatureBytes[alg];
  if (size !== undefined && jws.signature.length !== size) return false;
  try {
    const signature = size === undefined ? jws.signature : rsToDer(jws.signature);
    return verify(digest[alg], jws.signingInput, keyOptions(alg, key), signature);
  } catch {
    return false;
  }
}
