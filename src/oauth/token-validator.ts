/**
 * Validates the service's own access tokens: RFC 9068 JWTs (signature against the key ring,
 * `typ` at+jwt, issuer, lifetime) and reference handles (looked up in the store). ID tokens
 * and refresh tokens are not access tokens and never validate here.
 */
import type { ResolvedConfig } from '../config/schema.js';
import type { AccessTokenClaims, AccessTokenValidation, Clock, TokenValidator } from '../sdk/contracts.js';
import { isJwsAlgorithm, MalformedJws, parseCompactJws, verifyCompactJws, type CompactJws } from '../sdk/jws.js';
import type { Store } from '../store/store.js';
import type { KeyRing } from './keys/key-ring.js';
import { isNumericDate } from '../sdk/numeric-date.js';
import { isHandle } from './handles.js';

const jwtShape = /^[\w-]+\.[\w-]+\.[\w-]+$/;
const maxTokenLength = 16_384;
const clockSkew = 5;
/** Claims every access token this service issues carries (RFC 9068 §2.2). */
const requiredClaims = ['iss', 'sub', 'client_id', 'exp', 'iat', 'jti'] as const;
/** Time claims a grant may read and copy on (`auth_time` into a delegated token). */
const timeClaims = ['exp', 'iat', 'nbf', 'auth_time'] as const;

/** RFC 9068 §2.1: `at+jwt`, or its full media type `application/at+jwt`, in any case (as jose compares). */
function isAccessTokenTyp(typ: unknown): boolean {
  if (typeof typ !== 'string') return false;
  const lower = typ.toLowerCase();
  return (typ.includes('/') ? lower : `application/${lower}`) === 'application/at+jwt';
}

/**
 * Why a JWT's claims are not those of a live access token of this issuer, or undefined. The
 * checks and their order are jose's `jwtVerify` with the options this service used to pass it
 * (issuer, typ, required claims, 5 s tolerance); the reasons are jose's error codes, so the log
 * reads as before. test/properties/access-token-jwt.property.test.ts holds the two side by side.
 */
function claimsProblem(header: CompactJws['header'], claims: CompactJws['claims'], issuer: string, nowMs: number): string | undefined {
  if (!isAccessTokenTyp(header.typ)) return 'ERR_JWT_CLAIM_VALIDATION_FAILED';
  if (!requiredClaims.every((claim) => Object.hasOwn(claims, claim)) || claims.iss !== issuer) return 'ERR_JWT_CLAIM_VALIDATION_FAILED';
  const now = Math.floor(nowMs / 1000);
  if (typeof claims.iat !== 'number') return 'ERR_JWT_CLAIM_VALIDATION_FAILED';
  if (claims.nbf !== undefined && (typeof claims.nbf !== 'number' || claims.nbf > now + clockSkew)) return 'ERR_JWT_CLAIM_VALIDATION_FAILED';
  if (typeof claims.exp !== 'number') return 'ERR_JWT_CLAIM_VALIDATION_FAILED';
  if (claims.exp <= now - clockSkew) return 'ERR_JWT_EXPIRED';
  // A time claim far out of range (an `exp` of 1e300 never expires) is not one this service
  // issues: refuse it (RFC 7519 §2).
  const badTime = timeClaims.find((claim) => claims[claim] !== undefined && !isNumericDate(claims[claim]));
  return badTime === undefined ? undefined : `${badTime} is not a NumericDate`;
}

export function createTokenValidator({ config, keyRing, store, clock }: {
  config: Pick<ResolvedConfig, 'issuer'>;
  keyRing: KeyRing;
  store: Store;
  clock: Clock;
}): TokenValidator {
  const inactive = (reason: string): AccessTokenValidation => ({ active: false, reason });

  /**
   * Verified with node:crypto's synchronous verify against the key ring's public key for the
   * `kid`, imported once when the key was loaded: jose's WebCrypto path cost a delegation about
   * 160 µs more than a client_credentials token (issue 21).
   */
  async function validateJwt(token: string): Promise<AccessTokenValidation> {
    let jws: CompactJws;
    try {
      jws = parseCompactJws(token);
    } catch (err) {
      if (err instanceof MalformedJws) return inactive('malformed JWT');
      throw err;
    }
    const { header, claims } = jws;
    const key = typeof header.kid === 'string' ? await keyRing.verificationKey(header.kid) : undefined;
    if (!key) return inactive('unknown signing key');
    if (typeof header.alg !== 'string' || header.alg === '') return inactive('ERR_JWS_INVALID');
    if (header.alg !== key.alg || !isJwsAlgorithm(key.alg)) return inactive('ERR_JOSE_ALG_NOT_ALLOWED');
    if (!verifyCompactJws(jws, key.alg, key.verifyKey)) return inactive('ERR_JWS_SIGNATURE_VERIFICATION_FAILED');
    const problem = claimsProblem(header, claims, config.issuer, clock.now());
    if (problem !== undefined) return inactive(problem);
    return { active: true, claims: claims as AccessTokenClaims, format: 'jwt' };
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
