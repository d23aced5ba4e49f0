/**
 * The session cookie at the edge, shared by the sign-in pages and the device page: what the
 * request's `Cookie` header says (`BrowserCookies.inspect`), and the `Set-Cookie` lines an
 * answer needs. A request with two session cookies (cookie tossing: a sibling subdomain's
 * `Domain` cookie beside ours) is refused with a page, never reduced to one, and nothing is
 * cleared: clearing our cookie would leave the planted one alone, to be read next time where
 * the cookie has no `__Host-` prefix (an http issuer).
 */
import type { Context } from 'koa';
import type { Logger } from '../sdk/contracts.js';
import type { BrowserCookies, CookieReading } from '../pages/browser-cookie.js';
import { sessionLifetimeSeconds } from '../pages/page-parts.js';

export function readSessionCookie(ctx: Context, cookies: BrowserCookies, logger: Logger, page: string): CookieReading {
  const reading = cookies.inspect(ctx.get('cookie') || undefined);
  if (reading.kind === 'conflict') {
    logger.warn({ reqId: ctx.state.requestId as string | undefined, path: ctx.path }, `${page}: more than one session cookie (cookie tossing?); refused`);
  }
  return reading;
}

/**
 * The cookie lines for an answer: `browserId` to set (a sign-in), `clear` (a sign-out); else a
 * cookie read under the transition name is set again under the current name, and the old one
 * cleared.
 */
export function sessionCookieLines(cookies: BrowserCookies, reading: CookieReading, answer: { browserId?: string | undefined; clear?: boolean | undefined }, secureOrigin: boolean): string[] {
  if (reading.kind === 'conflict') return [];
  if (answer.browserId) return [cookies.serialize(answer.browserId, sessionLifetimeSeconds, secureOrigin), ...(reading.kind === 'one' && reading.legacy ? cookies.clearLegacy(secureOrigin) : [])];
  if (answer.clear) return cookies.clearAll(secureOrigin);
  if (reading.kind === 'one' && reading.legacy) return [cookies.serialize(reading.id, sessionLifetimeSeconds, secureOrigin), ...cookies.clearLegacy(secureOrigin)];
  return [];
}
