/**
 * The verification page's sign-in session: a signed (HMAC-SHA256) cookie holding a random
 * session id and, once signed in, the user's subject and sign-in time. HttpOnly, SameSite=Lax,
 * limited to the page's path, Secure when the issuer is https or the browser reached a trusted
 * proxy over https (the proxy then speaks plain http to us).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { deriveKey } from '../pages/cookie-secret.js';

export const sessionCookieName = 'svc_device_session';

export interface DeviceSession {
  /** Random; the CSRF token is bound to it. A new one on every sign-in and sign-out. */
  readonly sid: string;
  readonly subject?: string;
  /** Epoch seconds of the sign-in. */
  readonly authTime?: number;
  /** Epoch seconds after which the cookie is ignored. */
  readonly exp: number;
}

export interface SessionCookies {
  /** The valid, unexpired session in a `Cookie` header, if any. */
  read(cookieHeader: string | undefined, now: number): DeviceSession | undefined;
  create(now: number, user?: { subject: string; authTime: number }): DeviceSession;
  /** A `Set-Cookie` header value; `secure` adds `Secure` even when the options did not ask for it. */
  serialize(session: DeviceSession, now: number, secure?: boolean): string;
}

export interface SessionCookieOptions {
  secret: Buffer;
  secure: boolean;
  path: string;
  lifetimeSeconds: number;
}

export function createSessionCookies({ secret, secure, path, lifetimeSeconds }: SessionCookieOptions): SessionCookies {
  const key = deriveKey(secret, 'session cookie');
  const mac = (payload: string): Buffer => createHmac('sha256', key).update(payload).digest();

  function verify(value: string, now: number): DeviceSession | undefined {
    const [payload, signature, extra] = value.split('.');
    if (!payload || !signature || extra !== undefined) return undefined;
    const given = Buffer.from(signature, 'base64url');
    const expected = mac(payload);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    const session = parseSession(Buffer.from(payload, 'base64url').toString('utf8'));
    return session && session.exp > Math.floor(now / 1000) ? session : undefined;
  }

  return {
    read(cookieHeader, now) {
      for (const value of cookieValues(cookieHeader, sessionCookieName)) {
        const session = verify(value, now);
        if (session) return session;
      }
      return undefined;
    },
    create(now, user) {
      const sid = randomBytes(16).toString('base64url');
      const exp = Math.floor(now / 1000) + lifetimeSeconds;
      return user ? { sid, subject: user.subject, authTime: user.authTime, exp } : { sid, exp };
    },
    serialize(session, now, secureOrigin = false) {
      const payload = Buffer.from(JSON.stringify(session)).toString('base64url');
      const maxAge = Math.max(0, session.exp - Math.floor(now / 1000));
      const flags = [`Path=${path}`, `Max-Age=${maxAge}`, 'HttpOnly', 'SameSite=Lax', ...(secure || secureOrigin ? ['Secure'] : [])];
      return [`${sessionCookieName}=${payload}.${mac(payload).toString('base64url')}`, ...flags].join('; ');
    },
  };
}

function parseSession(json: string): DeviceSession | undefined {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { sid, subject, authTime, exp } = value as Record<string, unknown>;
  if (typeof sid !== 'string' || typeof exp !== 'number') return undefined;
  if (subject !== undefined && (typeof subject !== 'string' || typeof authTime !== 'number')) return undefined;
  return typeof subject === 'string' ? { sid, subject, authTime: authTime as number, exp } : { sid, exp };
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
