/**
 * The JWS algorithms an assertion may use, and which key each one needs. Symmetric (`HS*`) and
 * `none` are absent on purpose: a client's secret here is a public key, so HMAC "keyed" with it
 * would let anyone forge assertions (the key-confusion attack).
 */

import { isJwsAlgorithm, jwsAlgorithms, type JwsAlgorithm } from 'svc/sdk';

export const SUPPORTED_ALGORITHMS = jwsAlgorithms;

export type SupportedAlgorithm = JwsAlgorithm;

export const isSupportedAlgorithm: (value: unknown) => value is SupportedAlgorithm = isJwsAlgorithm;

export type Curve = 'P-256' | 'P-384' | 'P-521' | 'Ed25519';

/** What the fit check needs to know about a key. */
export interface KeyShape {
  readonly kty: 'RSA' | 'EC' | 'OKP';
  readonly crv: Curve | undefined;
  /** An `id-RSASSA-PSS` key: usable for PS* only. */
  readonly pssOnly: boolean;
  /** A JWK's own `alg`: when set, the only algorithm the key verifies (RFC 7517 §4.4). */
  readonly alg: string | undefined;
}

const ecCurve: Readonly<Record<string, Curve>> = { ES256: 'P-256', ES384: 'P-384', ES512: 'P-521' };

/** RFC 7518 §3.3–3.5 and RFC 8037 §3.1 (RFC 9864 for `Ed25519`). */
export function keyFitsAlgorithm(key: KeyShape, alg: SupportedAlgorithm): boolean {
  if (key.alg !== undefined && key.alg !== alg) return false;
  switch (alg) {
    case 'RS256':
    case 'RS384':
    case 'RS512':
      return key.kty === 'RSA' && !key.pssOnly;
    case 'PS256':
    case 'PS384':
    case 'PS512':
      return key.kty === 'RSA';
    case 'ES256':
    case 'ES384':
    case 'ES512':
      return key.kty === 'EC' && key.crv === ecCurve[alg];
    case 'EdDSA':
    case 'Ed25519':
      return key.kty === 'OKP' && key.crv === 'Ed25519';
  }
}

/** e.g. `"RSA"`, `"EC P-256"`, `"OKP Ed25519 (alg EdDSA)"`: for log reasons. */
export function describeKey(key: KeyShape): string {
  const base = key.crv === undefined ? (key.pssOnly ? 'RSA-PSS' : key.kty) : `${key.kty} ${key.crv}`;
  return key.alg === undefined ? base : `${base} (alg ${key.alg})`;
}
