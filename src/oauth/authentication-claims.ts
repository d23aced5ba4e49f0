/**
 * How and when the user signed in, as token claims (issue 35): `auth_time`, `acr` and `amr`
 * (OIDC Core §2, RFC 8176), in ID tokens and in access tokens (RFC 9068 §2.2.1), so an API can
 * demand a step-up (RFC 9470 §3) and introspection can report them. Issue 34: `idp`, the
 * upstream identity provider's configured name after a sign-in there (IdentityServer's claim;
 * no RFC registers one, OIDC Core §5.1.2 allows it as a private claim).
 */
import type { GrantSubject, JsonValue } from '../sdk/contracts.js';

export function authenticationClaims(user: Extract<GrantSubject, { kind: 'user' }>): Record<string, JsonValue> {
  return { auth_time: user.authTime, ...(user.acr === undefined ? {} : { acr: user.acr }), ...(user.amr === undefined ? {} : { amr: [...user.amr] }), ...(user.idp === undefined ? {} : { idp: user.idp }) };
}
