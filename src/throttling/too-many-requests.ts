import { OAuthError } from '../sdk/errors.js';

/**
 * The one answer of every limit: 429 with `Retry-After` in whole seconds. RFC 6749 has no code
 * for it; `temporarily_unavailable` (RFC 6749 §4.1.2.1, "unable to handle the request due to a
 * temporary overloading") says "come back later" to any OAuth client, and the status and header
 * say when. `slow_down` is only a device-polling answer (RFC 8628 §3.5).
 */
export function tooManyRequests(waitMs: number, what: string, logDetail: string): OAuthError {
  const seconds = Math.max(1, Math.ceil(waitMs / 1000));
  return new OAuthError('temporarily_unavailable', `${what}; retry after ${seconds} seconds.`, {
    status: 429,
    headers: { 'Retry-After': String(seconds) },
    logDetail,
  });
}
