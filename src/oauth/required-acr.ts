/**
 * An API's `requiredAcr` at the token endpoint (issue 35): a token for an API that demands a
 * class of sign-in (`mfa`) is issued only for a user whose sign-in met it, whatever the grant:
 * token exchange and delegation (the subject token's `acr`/`amr`), a refresh (the sign-in the
 * family began with), the password grant (a password only: it meets no `mfa`). The authorize
 * flow asks for the second factor before a code for such an API exists, so a code redeemed
 * here meets it. A token for a client acting for itself has no user and no sign-in to judge.
 *
 * Refused with `invalid_grant` (RFC 6749 §5.2: the grant, the user's sign-in it carries, does
 * not allow this token); RFC 8693 §2.2.2's `invalid_request` is for a subject token that is
 * malformed or unacceptable as such, and RFC 9470's `insufficient_user_authentication` is a
 * resource server's answer, which UserInfo gives.
 */
import type { GrantSubject } from '../sdk/contracts.js';
import { meetsAcr } from './acr-classes.js';
import { InvalidGrant } from './errors.js';

export function requireAcrMet(required: string | undefined, subject: GrantSubject, clientId: string): void {
  if (required === undefined || subject.kind !== 'user' || meetsAcr(required, subject)) return;
  throw new InvalidGrant(`The user's sign-in does not meet the authentication class this API requires (acr ${required}); the user must sign in again with it.`, {
    logDetail: `client "${clientId}": token for an API with requiredAcr "${required}", sign-in acr ${JSON.stringify(subject.acr ?? null)}`,
  });
}
