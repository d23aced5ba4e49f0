/**
 * The one refusal of client authentication: `invalid_client` (RFC 6749 §5.2), the same text
 * whatever check failed, so a caller learns nothing from it; the log detail says which check.
 */
import type { CredentialSource } from '../sdk/contracts.js';
import { InvalidClient, type OAuthError } from '../oauth/errors.js';

export const CLIENT_DENIED = 'Client authentication failed.';

/**
 * Every failure at introspection answers this one text: a wrong secret, an unknown name and a
 * client's credentials alike, so the caller learns nothing about which ids exist or what they
 * are, and a client's developer who tried their own credentials is told what the endpoint takes
 * (RFC 7662 §2.1 leaves the caller's authentication to the server).
 */
export const API_DENIED = "API resource authentication failed: introspection takes an API resource's name and secret, not a client's.";

/** RFC 6749 §5.2: a client that used the Authorization header gets a challenge for its scheme. */
function challenge(source: CredentialSource): Record<string, string> | undefined {
  const scheme = source.authorization?.split(' ', 1)[0];
  return scheme && /^[A-Za-z][\w.-]*$/.test(scheme) ? { 'WWW-Authenticate': `${scheme} realm="svc"` } : undefined;
}

export function denied(source: CredentialSource, logDetail: string, description = CLIENT_DENIED): OAuthError {
  return new InvalidClient(description, { logDetail, headers: challenge(source) ?? {} });
}
