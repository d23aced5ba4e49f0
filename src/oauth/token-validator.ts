/**
 * Validates the service's own access tokens: RFC 9068 JWTs (signature against the key ring,
 * `typ` at+jwt, issuer, lifetime) and reference handles (looked up in the store). ID tokens
 * and refresh tokens are not access tokens and never validate here.
 */
import { errors, jwtVerify, decodeProtectedHeader, type JWTPayload } from 'jose';
import type { ResolvedConfig } from '../config/schema.js';
import type { AccessTokenClaims, AccessTokenValidation, Clock, TokenValidator } from '../sdk/contracts.js';
import type { Store } from '../store/store.js';
import type { KeyRing } from './keys/key-ring.js';
import { isNumericDate } from '../sdk/numeric-date.js';
import { isHandle } from './handles.js';

const jwtShape = /^[\w-]+\.[\w-]+\.[\w-]+$/;
const maxTokenLength = 16_384;
const clockSkew = 5;
/** Time claims a grant may read and copy on (`auth_time` into a delegated token). */
const timeClaims = ['exp', 'iat', 'nbf', 'auth_time'] as const;

export function createTokenValidator({ config, keyRing, store, clock }: {
  config: ResolvedConfig;
  keyRing: KeyRing;
  store: Store;
  clock: Clock;
}): TokenValidator {
  const inactive = (reason: string): AccessTokenValidation => ({ active: false, reason });

  async function validateJwt(token: string): Promise<AccessTokenValidation> {
    let kid: string | undefined;
    try {
      kid = decodeProtectedHeader(token).kid;
    } catch {
      return inactive('malformed JWT');
    }
    const key = kid === undefined ? undefined : await keyRing.verificationKey(kid);
    if (!key) return inactive('unknown signing key');
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, key.publicKey, {
        issuer: config.issuer,
        typ: 'at+jwt',
        algorithms: [key.alg],
        requiredClaims: ['sub', 'client_id', 'exp', 'iat', 'jti'],
        clockTolerance: clockSkew,
        currentDate: new Date(clock.now()),
      }));
    } catch (err) {
      return inactive(err instanceof errors.JOSEError ? err.code : 'verification failed');
    }
    // jose compares numbers only, so no date overflows there; but a time claim far out of range
    // (an `exp` of 1e300 never expires) is not one this service issues: refuse it (RFC 7519 §2).
    const badTime = timeClaims.find((claim) => payload[claim] !== undefined && !isNumericDate(payload[claim]));
    if (badTime !== undefined) return inactive(`${badTime} is not a NumericDate`);
    return { active: true, claims: payload as AccessTokenClaims, format: 'jwt' };
  }

  async function validateReference(handle: string): Promise<AccessTokenValidation> {
    const record = await store.get(handle);
    if (!record || record.type !== 'reference_token') return inactive('unknown reference token');
    if (record.consumedAt !== undefined) return inactive('revoked reference token');
    if (record.expiresAt <= clock.now()) return inactive('expired reference token');
    return { active: true, claims: JSON.parse(record.data) as AccessTokenClaims, format: 'reference' };
  }

  return {
    async validateAccessToken(token) {
      if (token.length === 0 || token.length > maxTokenLength) return inactive('empty or oversized token');
      if (jwtShape.test(token)) return validateJwt(token);
      if (isHandle(token)) return validateReference(token);
      return inactive('not a token this service issues');
    },
  };
}
