/**
 * Start-up checks of the client fields the authorization code flow reads (OpenID Connect
 * sign-in): redirect URIs that RFC 9700 and RFC 8252 allow (`redirect-uri-rules.ts`,
 * the rule registration and `svc clients` share), and the combinations that cannot work. Each
 * message names the field.
 */
import { isLoopbackHost, redirectUriAdvice, redirectUriProblem } from './redirect-uri-rules.js';
import type { FieldChecks, Problems } from './problems.js';

export const signInClientFields = [
  'redirectUris', 'postLogoutRedirectUris', 'requirePkce', 'requireConsent', 'requirePushedAuthorization', 'authorizationCodeLifetime',
] as const;

export { isLoopbackHost };

export function checkSignInClient(p: Problems, at: string, c: Record<string, unknown>, httpsIssuer: boolean, { describe, bool, int, stringList }: FieldChecks): void {
  for (const field of ['redirectUris', 'postLogoutRedirectUris'] as const) {
    stringList(p, `${at}.${field}`, c[field], false).forEach((uri, j) => {
      const found = redirectUriProblem(uri, { httpsIssuer });
      if (found) p.add(`${at}.${field}[${j}]`, redirectUriAdvice(found, describe(uri)));
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
