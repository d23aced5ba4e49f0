/**
 * The browser's cookie, the one every page shares (sign-in, consent, logout, the device page):
 * a random browser id, signed (HMAC-SHA256), HttpOnly, SameSite=Lax (the authorization request
 * arrives as a top-level navigation from the client's site), Secure on https or when a trusted
 * proxy says the browser came over https. The cookie says nothing itself: whether the browser
 * is signed in, as whom and since when lives in the store under this id
 * (`sign-in-sessions.ts`), so it survives restarts and works across nodes. A new id is issued
 * at every sign-in (session fixation, RFC 9700 §4 / OWASP) and at sign-out; CSRF tokens are
 * bound to the id (`csrf.ts`), so they change with it.
 *
 * Cookie tossing: a sibling subdomain can set a cookie of our name for the parent domain with a
 * longer path (`Domain=example.com; Path=/connect/authorize`), and the browser sends it first.
 * Two defences (RFC 6265bis §4.1.3.2, §5.4):
 * - An https issuer's cookie is `__Host-svc_session`: browsers accept a `__Host-` cookie only
 *   with Secure, Path=/ and no Domain, so no other host can set or shadow it. Path=/ is wider
 *   than the issuer's path, so an issuer with a path gets its own name
 *   (`__Host-svc_session-<hash of the path>`) and two services under one host never share one.
 * - A request with more than one authentic session cookie (two values of a name, or both names
 *   with different ids) is `conflict`: the pages refuse it rather than pick one, since the order
 *   of cookies is the attacker's to choose.
 * Transition: an https issuer still reads the old name (`svc_session` at the issuer's path) when
 * the new one is absent, and the pages set it again under the new name. Each name has its own
 * MAC key, so an id the service issued under the new name cannot be planted under the old one;
 * only ids from before the upgrade pass there, and their sessions end within the session
 * lifetime (10 hours). The old name can go in the release after.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { deriveKey } from './cookie-secret.js';

/** The name on an http issuer, and the old name an https issuer still reads during the transition. */
export const browserCookieName = 'svc_session';

/** What the `Cookie` header says about the browser. */
export type CookieReading =
  | { readonly kind: 'none' }
  /** `legacy`: (also) sent under the transition name; set it again under `name` and clear the old one. */
  | { readonly kind: 'one'; readonly id: string; readonly legacy: boolean }
  /** More than one authentic session cookie: whose browser this is cannot be told. */
  | { readonly kind: 'conflict' };

export interface BrowserCookies {
  /** The name this service sets: `svc_session` on http, `__Host-svc_session…` on https. */
  readonly name: string;
  inspect(cookieHeader: string | undefined): CookieReading;
  /** The browser id when the `Cookie` header carries exactly one valid session cookie. */
  read(cookieHeader: string | undefined): string | undefined;
  newId(): string;
  /** `Set-Cookie` for `id`; `maxAgeSeconds` 0 clears it; `secureOrigin` adds `Secure` for this response. */
  serialize(id: string, maxAgeSeconds: number, secureOrigin?: boolean): string;
  /** `Set-Cookie` lines that clear every session cookie this service sets (the transition name too). */
  clearAll(secureOrigin?: boolean): string[];
  /** `Set-Cookie` lines that clear the transition name only (none on an http issuer). */
  clearLegacy(secureOrigin?: boolean): string[];
}

/** The cookie name for an https issuer whose path is `path` (`/` for none). */
export function hostCookieName(path: string): string {
  const root = '__Host-svc_session';
  return path === '/' ? root : `${root}-${createHash('sha256').update(path).digest('base64url').slice(0, 8)}`;
}

interface Jar {
  readonly name: string;
  readonly path: string;
  readonly mac: (id: string) => string;
}

export function createBrowserCookies(options: { secret: Buffer; secure: boolean; path: string }): BrowserCookies {
  const jar = (name: string, path: string, purpose: string): Jar => {
    const key = deriveKey(options.secret, purpose);
    return { name, path, mac: (id) => createHmac('sha256', key).update(id).digest('base64url') };
  };
  // The old name keeps its key, so cookies issued before the upgrade stay valid.
  const plain = jar(browserCookieName, options.path, 'sign-in session cookie');
  const current = options.secure ? jar(hostCookieName(options.path), '/', `sign-in session cookie ${hostCookieName(options.path)}`) : plain;
  const legacy = current === plain ? undefined : plain;
  const line = (j: Jar, value: string, maxAgeSeconds: number, secure: boolean): string =>
    [`${j.name}=${value}`, `Max-Age=${maxAgeSeconds}`, `Path=${j.path}`, 'HttpOnly', 'SameSite=Lax', ...(secure ? ['Secure'] : [])].join('; ');

  function inspect(header: string | undefined): CookieReading {
    const ids = new Set<string>();
    let underLegacy = false;
    for (const j of legacy ? [current, legacy] : [current]) {
      for (const value of cookieValues(header, j.name)) {
        const id = verified(value, j);
        if (id === undefined) continue;
        ids.add(id);
        if (j === legacy) underLegacy = true;
      }
    }
    if (ids.size > 1) return { kind: 'conflict' };
    const [id] = ids;
    return id === undefined ? { kind: 'none' } : { kind: 'one', id, legacy: underLegacy };
  }

  return {
    name: current.name,
    inspect,
    read(header) {
      const reading = inspect(header);
      return reading.kind === 'one' ? reading.id : undefined;
    },
    newId: () => randomBytes(32).toString('base64url'),
    serialize(id, maxAgeSeconds, secureOrigin = false) {
      return line(current, `${id}.${current.mac(id)}`, maxAgeSeconds, options.secure || secureOrigin);
    },
    clearAll(secureOrigin = false) {
      return [current, ...(legacy ? [legacy] : [])].map((j) => line(j, '', 0, options.secure || secureOrigin));
    },
    clearLegacy(secureOrigin = false) {
      return legacy ? [line(legacy, '', 0, options.secure || secureOrigin)] : [];
    },
  };
}

/** The id of `value` when its MAC under `jar`'s key is right. */
function verified(value: string, jar: Jar): string | undefined {
  const [id, signature, extra] = value.split('.');
  if (!id || !signature || extra !== undefined) return undefined;
  const given = Buffer.from(signature);
  const expected = Buffer.from(jar.mac(id));
  return given.length === expected.length && timingSafeEqual(given, expected) ? id : undefined;
}

/** Every value of the named cookie (a browser may send several with different paths or domains). */
function cookieValues(header: string | undefined, name: string): string[] {
  if (!header) return [];
  const values: string[] = [];
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) values.push(part.slice(eq + 1).trim());
  }
  return values;
}
