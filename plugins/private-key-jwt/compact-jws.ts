/**
 * Reads a client assertion in JWS compact serialization (RFC 7515 §7.1) and checks its
 * signature with node:crypto's synchronous `verify`.
 *
 * jose 6 verifies through WebCrypto only, and WebCrypto runs every RSA or ECDSA check on
 * libuv's thread pool. With the service on one core, that round trip costs as much as the check
 * itself (RS256: about 40 µs against 20 µs here), on the one request that every
 * `private_key_jwt` client sends (README "Performance"). What to trust is decided before this
 * runs: the accepted algorithms (options.ts), the key's fit to `alg` (algorithms.ts) and the
 * candidate keys (client-keys.ts).
 */
import { constants, verify, type KeyObject } from 'node:crypto';
import type { SupportedAlgorithm } from './algorithms.js';

export interface CompactJws {
  /** The JOSE header, a JSON object. */
  readonly header: Readonly<Record<string, unknown>>;
  /** The payload, a JSON object; trusted only once `verifySignature` says so. */
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

function jsonObject(bytes: Buffer, what: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new MalformedJws(`${what} is not JSON`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new MalformedJws(`${what} is not a JSON object`);
  return value as Record<string, unknown>;
}

/** Splits and decodes; verifies nothing. */
export function parseCompactJws(token: string): CompactJws {
  const first = token.indexOf('.');
  const second = token.indexOf('.', first + 1);
  if (first < 0 || second < 0 || token.includes('.', second + 1)) throw new MalformedJws('not three dot-separated parts');
  const header = jsonObject(decode(token.slice(0, first), 'header'), 'header');
  // RFC 7515 §4.1.11: extensions the recipient does not understand make the JWS invalid, and
  // this reader understands none (RFC 7797's unencoded payload has no place in a JWT).
  if (header.crit !== undefined) throw new MalformedJws('header has crit; no extension is understood');
  return {
    header,
    claims: jsonObject(decode(token.slice(first + 1, second), 'payload'), 'payload'),
    signingInput: Buffer.from(token.slice(0, second), 'latin1'),
    // Empty for `alg: none`, which the caller then refuses by name.
    signature: second === token.length - 1 ? Buffer.alloc(0) : decode(token.slice(second + 1), 'signature'),
  };
}

const digest: Readonly<Record<SupportedAlgorithm, string | null>> = {
  RS256: 'sha256', RS384: 'sha384', RS512: 'sha512',
  PS256: 'sha256', PS384: 'sha384', PS512: 'sha512',
  ES256: 'sha256', ES384: 'sha384', ES512: 'sha512',
  EdDSA: null, Ed25519: null,
};

// RFC 7518 §3.4: an ECDSA signature is R || S, each the size of the curve's order.
const ecdsaSignatureBytes: Readonly<Partial<Record<SupportedAlgorithm, number>>> = { ES256: 64, ES384: 96, ES512: 132 };

/**
 * Whether `key` made the signature under `alg`. The caller has checked that the key fits `alg`;
 * a key node:crypto refuses for it (an RSASSA-PSS key bound to another hash) does not verify.
 */
export function verifySignature(jws: CompactJws, alg: SupportedAlgorithm, key: KeyObject): boolean {
  const size = ecdsaSignatureBytes[alg];
  if (size !== undefined && jws.signature.length !== size) return false;
  const options = size !== undefined
    ? { key, dsaEncoding: 'ieee-p1363' as const }
    // RFC 7518 §3.5: the PSS salt is as long as the hash output.
    : alg.startsWith('PS')
      ? { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST }
      : key;
  try {
    return verify(digest[alg], jws.signingInput, options, jws.signature);
  } catch {
    return false;
  }
}
