/**
 * Start-up checks of the client fields the authorization code flow reads (OpenID Connect
 * sign-in): redirect URIs that RFC 9700 and RFC 8252 allow, and the combinations that cannot
 * work. Each message names the field.
 */
import type { Problems } from './validate.js';

/** The field checks `validate.ts` has, passed in: importing them would make a module cycle. */
export interface FieldChecks {
  describe(value: unknown): string;
  bool(p: Problems, path: string, value: unknown): void;
  int(p: Problems, path: string, value: unknown, min: number, max?: number): void;
  stringList(p: Problems, path: string, value: unknown, required: boolean): string[];
}

export const signInClientFields = [
  'redirectUris', 'postLogoutRedirectUris', 'requirePkce', 'requireConsent', 'requirePushedAuthorization', 'authorizationCodeLifetime',
] as const;

/** RFC 8252 §7.3 and §8.3: loopback redirect URIs use an IP literal; `localhost` is tolerated. */
const loopbackHosts = new Set(['127.0.0.1', '[::1]', 'localhost']);

export function isLoopbackHost(hostname: string): boolean {
  return loopbackHosts.has(hostname);
}

/** A redirect (or post-logout redirect) URI's problem, or `undefined` when it may be registered. */
function redirectUriProblem(value: string, httpsIssuer: boolean, describe: FieldChecks['describe']): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `expected an absolute URI such as "https://app.example.com/callback", got ${describe(value)}`;
  }
  // RFC 6749 §3.1.2: the endpoint URI MUST NOT include a fragment component.
  if (value.includes('#')) return 'a redirect URI must not contain a fragment (RFC 6749 §3.1.2)';
  if (url.protocol === 'http:' && httpsIssuer && !isLoopbackHost(url.hostname)) {
    return 'an http redirect URI is allowed only for a loopback address (127.0.0.1 or [::1], RFC 8252 §7.3) when the issuer is https; use https';
  }
  if ((url.protocol === 'http:' || url.protocol === 'https:') && url.username + url.password !== '') {
    return 'a redirect URI must not contain user information';
  }
  if (url.protocol === 'javascript:' || url.protocol === 'data:' || url.protocol === 'file:') return `the scheme ${url.protocol} is not a redirect target`;
  return undefined;
}

export function checkSignInClient(p: Problems, at: string, c: Record<string, unknown>, httpsIssuer: boolean, { describe, bool, int, stringList }: FieldChecks): void {
  for (const field of ['redirectUris', 'postLogoutRedirectUris'] as const) {
    stringList(p, `${at}.${field}`, c[field], false).forEach((uri, j) => {
      const problem = redirectUriProblem(uri, httpsIssuer, describe);
      if (problem) p.add(`${at}.${field}[${j}]`, problem);
    });
  }
  for (const field of ['requirePkce', 'requireConsent', 'requirePushedAuthorization'] as const) bool(p, `${at}.${field}`, c[field]);
  // RFC 6749 §4.1.2: a maximum lifetime of 10 minutes is RECOMMENDED.
  int(p, `${at}.authorizationCodeLifetime`, c.authorizationCodeLifetime, 1, 600);
  const grants = Array.isArray(c.allowedGrantTypes) ? c.allowedGrantTypes : [];
  if (grants.includes('authorization_code')) {
    if (!Array.isArray(c.redirectUris) || c.redirectUris.length === 0) {
      p.add(`${at}.redirectUris`, 'required with the authorization_code grant: list the exact URIs the client may be sent back to');
    }
  }
  // RFC 9700 §2.1.1: public clients MUST use PKCE.
  if (c.requirePkce === false && c.requireClientSecret === false) {
    p.add(`${at}.requirePkce`, 'a public client (requireClientSecret: false) must use PKCE; remove requirePkce: false');
  }
}
