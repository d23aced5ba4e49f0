/**
 * Sender-constrained tokens as grants see them: a grant that accepts an access token of this
 * service (delegation's `token`, token exchange's `subject_token`) accepts a bound one only from
 * the sender it is bound to, whichever way it is bound (RFC 7800 `cnf`): a DPoP key
 * (RFC 9449 §7.1) or a TLS client certificate (RFC 8705 §3).
 */
import type { JsonValue, ValidatedTokenRequest } from './contracts.js';
import { requireDpopBinding } from './dpop.js';
import { InvalidGrant } from './errors.js';

type Claims = Readonly<Record<string, JsonValue | undefined>>;

/** The certificate thumbprint (`cnf["x5t#S256"]`) a token is bound to, if it is. */
export function boundCertificate(claims: Claims): string | undefined {
  const cnf = claims.cnf;
  if (typeof cnf !== 'object' || cnf === null || Array.isArray(cnf)) return undefined;
  const thumbprint = cnf['x5t#S256'];
  return typeof thumbprint === 'string' ? thumbprint : undefined;
}

/** Why a certificate-bound token may not be used on this request; `undefined` when it may (or is not bound). */
export function certificateBindingProblem(claims: Claims, certificateThumbprint: string | undefined): string | undefined {
  const bound = boundCertificate(claims);
  if (bound === undefined) return undefined;
  if (certificateThumbprint === undefined) return 'the token is certificate-bound and the request came without a client certificate';
  if (certificateThumbprint !== bound) return 'the token is bound to another client certificate than the request came with';
  return undefined;
}

/**
 * RFC 8705 §3: a certificate-bound token is accepted only from a request that came with that
 * certificate (over the service's own handshake or from a trusted proxy). Otherwise
 * `invalid_grant`: at the token endpoint the token is the grant, and RFC 6750's 401
 * `invalid_token` is registered for resource access only (RFC 6750 §6.2.2), not for token
 * endpoint responses (RFC 6749 §5.2). The reason goes to the log only.
 */
export function requireCertificateBinding(claims: Claims, certificateThumbprint: string | undefined): void {
  const problem = certificateBindingProblem(claims, certificateThumbprint);
  if (problem === undefined) return;
  throw new InvalidGrant('The token is bound to a TLS client certificate this request does not present.', { logDetail: problem });
}

/**
 * Every binding of an access token a grant accepts, checked against the token request: a
 * DPoP-bound token needs a proof of its key with the token's `ath` (401 `invalid_dpop_proof`,
 * see `requireDpopBinding`), a certificate-bound one the same client certificate
 * (`invalid_grant`, see `requireCertificateBinding`). A token bound both ways needs both.
 *
 * @example
 * const validation = await tokenValidator.validateAccessToken(token);
 * if (validation.active) requireSenderBinding(validation.claims, token, ctx.request);
 */
export function requireSenderBinding(
  claims: Claims, token: string, request: Pick<ValidatedTokenRequest, 'dpop' | 'certificateThumbprint'>,
): void {
  requireDpopBinding(claims, token, request.dpop);
  requireCertificateBinding(claims, request.certificateThumbprint);
}
