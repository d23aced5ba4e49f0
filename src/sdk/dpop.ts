/**
 * DPoP-bound tokens (RFC 9449) as grants see them. The host validates the request's proof
 * (signature, `htm`, `htu`, `iat`, single-use `jti`, nonce) before any grant runs and hands the
 * grant what it proved: the key's thumbprint and the `ath` it carried. A grant that accepts
 * another access token (delegation, token exchange) checks that token's binding here.
 */
import { createHash } from 'node:crypto';
import { InvalidDpopProof } from './errors.js';
import type { JsonValue } from './json.js';

/** What a validated DPoP proof established. */
export interface DpopProofSummary {
  /** RFC 7638 SHA-256 thumbprint of the proof's public key (base64url): a bound token's `cnf.jkt`. */
  readonly jkt: string;
  /** The proof's `ath` claim, when it carried one: the hash of the access token it accompanies. */
  readonly ath: string | undefined;
  /** The proof's JWS `alg` (a profile may allow fewer than the service accepts: FAPI 2.0). */
  readonly alg?: string | undefined;
}

/** The confirmation claim of a sender-constrained token (RFC 7800 §3.1; RFC 9449 §6, RFC 8705 §3.1). */
export interface Confirmation {
  readonly jkt?: string;
  readonly 'x5t#S256'?: string;
}

/** RFC 9449 §4.2: `ath` is the base64url SHA-256 of the access token's ASCII bytes. */
export function accessTokenHash(token: string): string {
  return createHash('sha256').update(token, 'ascii').digest('base64url');
}

/** The DPoP key thumbprint a token is bound to, if it is. */
export function boundJkt(claims: Readonly<Record<string, JsonValue | undefined>>): string | undefined {
  const cnf = claims.cnf;
  if (typeof cnf !== 'object' || cnf === null || Array.isArray(cnf)) return undefined;
  return typeof cnf.jkt === 'string' ? cnf.jkt : undefined;
}

/** Why a bound token may not be used with this proof; `undefined` when it may (or is not bound). */
export function dpopBindingProblem(
  claims: Readonly<Record<string, JsonValue | undefined>>, token: string, proof: DpopProofSummary | undefined,
): string | undefined {
  const jkt = boundJkt(claims);
  if (jkt === undefined) return undefined;
  if (proof === undefined) return 'the token is DPoP-bound and no DPoP proof was sent';
  if (proof.jkt !== jkt) return 'the DPoP proof is signed with another key than the token is bound to';
  if (proof.ath === undefined) return 'the DPoP proof has no ath for the bound token';
  if (proof.ath !== accessTokenHash(token)) return 'the DPoP proof ath does not match the token';
  return undefined;
}

/**
 * For a grant that accepts an access token of this service (delegation's `token`, token
 * exchange's `subject_token`): a DPoP-bound token is accepted only with a proof of its key whose
 * `ath` is the token's hash (RFC 9449 §7.1), otherwise 401 `invalid_dpop_proof` with a `DPoP`
 * challenge. The reason goes to the log only.
 *
 * @example
 * const validation = await tokenValidator.validateAccessToken(token);
 * if (validation.active) requireDpopBinding(validation.claims, token, ctx.request.dpop);
 */
export function requireDpopBinding(
  claims: Readonly<Record<string, JsonValue | undefined>>, token: string, proof: DpopProofSummary | undefined,
): void {
  const problem = dpopBindingProblem(claims, token, proof);
  if (problem === undefined) return;
  throw new InvalidDpopProof('The token is DPoP-bound; send a DPoP proof of its key with ath.', {
    status: 401,
    logDetail: problem,
    headers: { 'WWW-Authenticate': 'DPoP error="invalid_dpop_proof", error_description="The token is DPoP-bound"' },
  });
}
