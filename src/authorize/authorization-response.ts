/**
 * The authorization response (RFC 6749 §4.1.2) and its errors (§4.1.2.1), with `iss` in every
 * one (RFC 9207, the mix-up defence of RFC 9700 §4.4), sent as a redirect with a query or as an
 * auto-submitted form (OAuth 2.0 Form Post Response Mode).
 */
import type { OAuthError } from '../oauth/errors.js';
import type { ResponseTarget } from './authorization-request.js';

export type AuthorizationResponse =
  | { readonly kind: 'redirect'; readonly location: string }
  | { readonly kind: 'form_post'; readonly action: string; readonly fields: ReadonlyArray<readonly [string, string]> };

export function authorizationResponse(issuer: string, target: ResponseTarget, values: Record<string, string>): AuthorizationResponse {
  const fields: Array<[string, string]> = Object.entries(values);
  if (target.state !== undefined) fields.push(['state', target.state]);
  fields.push(['iss', issuer]);
  if (target.responseMode === 'form_post') return { kind: 'form_post', action: target.redirectUri, fields };
  const url = new URL(target.redirectUri);
  for (const [name, value] of fields) url.searchParams.append(name, value);
  return { kind: 'redirect', location: url.href };
}

export function errorResponse(issuer: string, target: ResponseTarget, error: OAuthError): AuthorizationResponse {
  return authorizationResponse(issuer, target, { error: error.code, error_description: error.description });
}
