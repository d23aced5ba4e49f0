/**
 * CSRF tokens for every page's forms: an HMAC of what the form is bound to, always including the
 * browser id of the cookie (`browser-cookie.ts`), so a token is only good together with the
 * cookie it was issued for (a signed double-submit token). Each page prefixes its own purpose
 * (`device:<id>`, `logout:<id>`, `<id>:<interaction>`), so a token from one form is worth nothing
 * on another. The browser id changes on sign-in, so a token from before cannot approve anything.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { deriveKey } from './cookie-secret.js';

export interface Csrf {
  tokenFor(sessionId: string): string;
  verify(sessionId: string, token: string | undefined): boolean;
}

export function createCsrf(secret: Buffer): Csrf {
  const key = deriveKey(secret, 'csrf token');
  const tokenFor = (sessionId: string): string => createHmac('sha256', key).update(sessionId).digest('base64url');
  return {
    tokenFor,
    verify(sessionId, token) {
      if (token === undefined) return false;
      const given = Buffer.from(token);
      const expected = Buffer.from(tokenFor(sessionId));
      return given.length === expected.length && timingSafeEqual(given, expected);
    },
  };
}
