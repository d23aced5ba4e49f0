/** The claim checks of RFC 7523 §3, run after the signature verified. Each failure throws a log reason. */
import type { JWTPayload } from 'jose';
import { isNumericDate } from 'svc/sdk';
import type { AudienceRule } from './audience.js';
import { reject, show } from './rejection.js';

export interface ClaimExpectations {
  /** The client id (or API resource name) being authenticated. */
  readonly holderId: string;
  readonly audience: AudienceRule;
  /** Epoch seconds, fractional. */
  readonly now: number;
  readonly clockSkew: number;
  readonly maxLifetime: number;
}

function numericDate(payload: JWTPayload, claim: 'exp' | 'nbf' | 'iat'): number | undefined {
  const value = payload[claim];
  if (value === undefined) return undefined;
  // Checked for range before `iso()` below: a date JavaScript cannot represent would throw there.
  if (!isNumericDate(value)) reject(`${claim} is not a NumericDate: ${show(value)}`);
  return value;
}

const iso = (seconds: number): string => new Date(seconds * 1000).toISOString();

/** RFC 7523 §3 items 1–2: the client is both issuer and subject. */
export function checkIssuerAndSubject(payload: JWTPayload, holderId: string): void {
  if (payload.iss !== holderId) reject(`iss ${show(payload.iss)} is not the client id ${show(holderId)}`);
  if (payload.sub !== holderId) reject(`sub ${show(payload.sub)} is not the client id ${show(holderId)}`);
}

/** RFC 10070: one audience value, the issuer identifier (or in compat mode an endpoint URL). */
export function checkAudience(payload: JWTPayload, rule: AudienceRule): void {
  const { aud } = payload;
  const single = typeof aud === 'string' ? aud : Array.isArray(aud) && aud.length === 1 ? aud[0] : undefined;
  if (typeof single !== 'string') {
    reject(`aud ${show(aud)} is not a single value (${rule.mode} audience, by ${rule.because})`);
  }
  if (!rule.accepted.includes(single)) {
    const expected = rule.mode === 'strict' ? 'the issuer identifier' : 'the issuer identifier, token endpoint or called endpoint URL';
    reject(`aud ${show(aud)} is not ${expected} (${rule.mode} audience, by ${rule.because})`);
  }
}

/** RFC 7523 §3 items 4–6, with `clockSkew` either way and the `maxLifetime` limit. Returns `exp`. */
export function checkTimes(payload: JWTPayload, { now, clockSkew, maxLifetime }: ClaimExpectations): number {
  const exp = numericDate(payload, 'exp');
  const nbf = numericDate(payload, 'nbf');
  const iat = numericDate(payload, 'iat');
  if (exp === undefined) reject('exp is missing');
  if (now >= exp + clockSkew) reject(`expired at ${iso(exp)} (clock skew ${clockSkew}s)`);
  if (nbf !== undefined && nbf - clockSkew > now) reject(`not valid before ${iso(nbf)} (nbf; clock skew ${clockSkew}s)`);
  if (iat !== undefined && iat - clockSkew > now) reject(`issued in the future at ${iso(iat)} (iat; clock skew ${clockSkew}s)`);
  const lifetime = exp - (iat ?? now);
  if (lifetime > maxLifetime + clockSkew) {
    reject(`lifetime of ${Math.round(lifetime)}s (exp - ${iat === undefined ? 'now' : 'iat'}) exceeds maxLifetime ${maxLifetime}s + clock skew ${clockSkew}s`);
  }
  return exp;
}

/** RFC 7523 §3 item 7; the replay check itself runs last, in the validator. */
export function requireJti(payload: JWTPayload): string {
  const { jti } = payload;
  if (jti === undefined) reject('jti is missing');
  if (typeof jti !== 'string' || jti === '') reject(`jti is not a non-empty string: ${show(jti)}`);
  return jti;
}

export function checkClaims(payload: JWTPayload, expect: ClaimExpectations): { exp: number; jti: string } {
  checkIssuerAndSubject(payload, expect.holderId);
  checkAudience(payload, expect.audience);
  const exp = checkTimes(payload, expect);
  return { exp, jti: requireJti(payload) };
}
