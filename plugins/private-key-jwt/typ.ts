/**
 * The `typ` header of a client assertion. RFC 8725 §3.11: a JWT explicitly typed as another
 * kind (an access token's `at+jwt`, a logout token, a DPoP proof...) must not be accepted as a
 * client assertion, or a token minted for one purpose could authenticate a client. Accepted:
 * no `typ` (RFC 7523 clients), `JWT` (RFC 7519 §5.1), and RFC 10070's
 * `client-authentication+jwt`.
 */

export const CLIENT_AUTHENTICATION_TYP = 'client-authentication+jwt';

/** RFC 7515 §4.1.9: `typ` compares case-insensitively and may omit the `application/` prefix. */
function mediaType(typ: string): string {
  return typ.toLowerCase().replace(/^application\//, '');
}

/** Typed `client-authentication+jwt`: only RFC 10070 clients send it, so their rules apply. */
export function isExplicitlyTyped(typ: string | undefined): boolean {
  return typ !== undefined && mediaType(typ) === CLIENT_AUTHENTICATION_TYP;
}

/** Whether the header's `typ` allows the JWT to be a client assertion at all. */
export function isClientAuthenticationTyp(typ: string | undefined): boolean {
  return typ === undefined || mediaType(typ) === 'jwt' || mediaType(typ) === CLIENT_AUTHENTICATION_TYP;
}
