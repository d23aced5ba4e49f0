/** The checks of RFC 7523 §3 and RFC 7519 §4.1 on an external token, after its signature verified. Each failure throws a log reason. */
import { isNumericDate } from 'svc/sdk';
import type { TrustedIssuer } from './options.js';
import { reject, show } from './rejection.js';

const iso = (seconds: number): string => new Date(seconds * 1000).toISOString();

function numericDate(claims: Readonly<Record<string, unknown>>, claim: 'exp' | 'nbf' | 'iat'): number | undefined {
  const value = claims[claim];
  if (value === undefined) return undefined;
  if (!isNumericDate(value)) reject(`${claim} is not a NumericDate: ${show(value)}`);
  return value;
}

/** RFC 7523 §3 item 3: the token must name this service among its audiences (an array, RFC 7519 §4.1.3, as Kubernetes sends). */
export function checkAudience(claims: Readonly<Record<string, unknown>>, issuer: TrustedIssuer): void {
  const { aud } = claims;
  const values = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud : [];
  if (!values.some((v) => typeof v === 'string' && issuer.audience.includes(v))) {
    reject(`aud ${show(aud)} does not include ${issuer.audience.length === 1 ? show(issuer.audience[0]) : `one of ${show(issuer.audience)}`}`);
  }
}

/**
 * RFC 7523 §3 items 4–6 with `clockSkew` either way, and the issuer's `maxLifetime` on
 * `exp − iat` (or `exp − nbf`, or `exp − now` when neither is there): a token that could be
 * replayed for a year is not a short-lived workload credential. Returns `exp`.
 */
export function checkTimes(claims: Readonly<Record<string, unknown>>, issuer: TrustedIssuer, now: number, clockSkew: number): number {
  const exp = numericDate(claims, 'exp');
  const nbf = numericDate(claims, 'nbf');
  const iat = numericDate(claims, 'iat');
  if (exp === undefined) reject('exp is missing');
  if (now >= exp + clockSkew) reject(`expired at ${iso(exp)} (clock skew ${clockSkew}s)`);
  if (nbf !== undefined && nbf - clockSkew > now) reject(`not valid before ${iso(nbf)} (nbf; clock skew ${clockSkew}s)`);
  if (iat !== undefined && iat - clockSkew > now) reject(`issued in the future at ${iso(iat)} (iat; clock skew ${clockSkew}s)`);
  const from = iat ?? nbf ?? now;
  const lifetime = exp - from;
  if (lifetime > issuer.maxLifetime + clockSkew) {
    const by = iat !== undefined ? 'iat' : nbf !== undefined ? 'nbf' : 'now';
    reject(`lifetime of ${Math.round(lifetime)}s (exp - ${by}) exceeds the issuer's maxLifetime ${issuer.maxLifetime}s + clock skew ${clockSkew}s`);
  }
  return exp;
}

/** RFC 7519 §4.1.7: a `jti` is a case-sensitive string; absent is allowed unless the issuer requires it. */
export function readJti(claims: Readonly<Record<string, unknown>>, issuer: TrustedIssuer): string | undefined {
  const { jti } = claims;
  if (jti === undefined) {
    if (issuer.requireJti) reject('jti is missing and the issuer requires one (requireJti)');
    return undefined;
  }
  if (typeof jti !== 'string' || jti === '') reject(`jti is not a non-empty string: ${show(jti)}`);
  return jti;
}

/**
 * RFC 8725 §3.11: a JWT explicitly typed as another kind (an access token's `at+jwt`...) is not
 * accepted. The platforms send none (Kubernetes), `JWT` (GitHub) or `JWT`/`JOSE` (JWT-SVID §2.3).
 */
export function checkTyp(typ: unknown): void {
  if (typ === undefined) return;
  const media = typeof typ === 'string' ? typ.toLowerCase().replace(/^application\//, '') : undefined;
  if (media !== 'jwt' && media !== 'jose') reject(`typ ${show(typ)} is not a plain JWT type (absent, JWT or JOSE; RFC 8725 §3.11)`);
}
