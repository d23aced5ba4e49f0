/**
 * The browser's cookie, the one every page shares (sign-in, consent, logout, the device page):
 * a random browser id, signed (HMAC-SHA256), HttpOnly, SameSite=Lax (the authorization request
 * arrives as a top-level navigation from the client's site), Secure on https or when a trusted
 * proxy says the browser came over https. The cookie says nothing itself: whether the browser
 * is signed in, as whom and since when lives in the store under this id
 * (`sign-in-sessions.ts`), so it survives restarts and works across nodes. A new id is issued
 * at every sign-in (session fixation, RFC 9700 §4 / OWASP) and at sign-out; CSRF tokens are
 * bound to the id (`csrf.ts`), so they change with it.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { deriveKey } from './cookie-secret.js';

export const browserCookieName = 'svc_session';

export interface BrowserCookies {
  /** The browser id of a valid cookie in the `Cookie` header, if any. */
  read(cookieHeader: string | undefined): string | undefined;
  newId(): string;
  /** `Set-Cookie` for `id`; `maxAgeSeconds` 0 clears it; `secureOrigin` adds `Secure` for this response. */
  serialize(id: string, maxAgeSeconds: number, secureOrigin?: boolean): string;
}

export function createBrowserCookies(options: { secret: Buffer; secure: boolean; path: string }): BrowserCookies {
  const key = deriveKey(options.secret, 'sign-in session cookie');
  const mac = (id: string): string => createHmac('sha256', key).update(id).digest('base64url');
  const flags = (secure: boolean): string => [`Path=${options.path}`, 'HttpOnly', 'SameSite=Lax', ...(secure ? ['Secure'] : [])].join('; ');
  return {
    read(header) {
      for (const value of cookieValues(header, browserCookieName)) {
        const [id, signature, extra] = value.split('.');
        if (!id || !signature || extra !== undefined) continue;
        const given = Buffer.from(signature);
        const expected = Buffer.from(mac(id));
        if (given.length === expected.length && timingSafeEqual(given, expected)) return id;
      }
      return undefined;
    },
    newId: () => randomBytes(32).toString('base64url'),
    serialize(id, maxAgeSeconds, secureOrigin = false) {
      return `${browserCookieName}=${id}.${mac(id)}; Max-Age=${maxAgeSeconds}; ${flags(options.secure || secureOrigin)}`;
    },
  };
}

/** Every value of the named cookie (a browser may send several with different paths). */
function cookieValues(header: string | undefined, name: string): string[] {
  if (!header) return [];
  const values: string[] = [];
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) values.push(part.slice(eq + 1).trim());
  }
  return values;
}
