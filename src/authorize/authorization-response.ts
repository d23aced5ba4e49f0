/**
 * The authorization response (RFC 6749 §4.1.2) and its errors (§4.1.2.1), with `iss` in every
 * one (RFC 9207, the mix-up defence of RFC 9700 §4.4), sent as a redirect with a query or as an
 * auto-submitted form (OAuth 2.0 Form Post Response Mode). In a JARM mode (`query.jwt`,
 * `form_post.jwt`) the same parameters wait as an `UnsignedJwtResponse` until `jarm.ts` signs
 * them into one `response` parameter, the last thing the flow does before the answer leaves.
 */
import type { OAuthError } from '../oauth/errors.js';
import type { ResponseTarget } from './authorization-request.js';

/** What is sent: a redirect, or the form_post page. */
export type AuthorizationResponse =
  | { readonly kind: 'redirect'; readonly location: string }
  | { readonly kind: 'form_post'; readonly action: string; readonly fields: ReadonlyArray<readonly [string, string]> };

/** JARM: the parameters of a response whose mode signs them, not yet signed. */
export interface UnsignedJwtResponse {
  readonly kind: 'jwt';
  readonly target: ResponseTarget;
  readonly fields: ReadonlyArray<readonly [string, string]>;
}

/** What the flow's steps answer: a response to send, or one still to be signed. */
export type PendingResponse = AuthorizationResponse | UnsignedJwtResponse;

/** `fields` at the redirect URI, in the query or in a form posted there. */
export function deliver(redirectUri: string, mode: 'query' | 'form_post', fields: ReadonlyArray<readonly [string, string]>): AuthorizationResponse {
  if (mode === 'form_post') return { kind: 'form_post', action: redirectUri, fields };
  const url = new URL(redirectUri);
  for (const [name, value] of fields) url.searchParams.append(name, value);
  return { kind: 'redirect', location: url.href };
}

export function authorizationResponse(issuer: string, target: ResponseTarget, values: Record<string, string>): PendingResponse {
  const fields: Array<[string, string]> = Object.entries(values);
  if (target.state !== undefined) fields.push(['state', target.state]);
  // RFC 9207 §2.4: with JARM the JWT's `iss` is this very value.
  fields.push(['iss', issuer]);
  switch (target.responseMode) {
    case 'query.jwt':
    case 'form_post.jwt':
      return { kind: 'jwt', target, fields };
    default:
      return deliver(target.redirectUri, target.responseMode, fields);
  }
}

export function errorResponse(issuer: string, target: ResponseTarget, error: OAuthError): PendingResponse {
  return authorizationResponse(issuer, target, { error: error.code, error_description: error.description });
}
