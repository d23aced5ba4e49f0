/**
 * Refuses a request that carries more than one `Authorization` header. Node's HTTP parser keeps
 * only the first (`req.headers`), so two would be silently reduced to one, and a proxy or API in
 * front of us may have judged the other: credentials must be unambiguous (RFC 6749 §2.3: one
 * authentication method per request; RFC 9110 §5.3: the field is not a list).
 */
import type { Context, Next } from 'koa';
import { InvalidRequest } from '../oauth/errors.js';

/** True when the raw header list names `Authorization` more than once (any case). */
function repeated(rawHeaders: readonly string[]): boolean {
  let seen = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    if (name.length === 13 && name.toLowerCase() === 'authorization' && ++seen > 1) return true;
  }
  return false;
}

export async function singleAuthorization(ctx: Context, next: Next): Promise<void> {
  // Only a request with one Authorization header at all pays for the scan.
  if (ctx.req.headers.authorization !== undefined && repeated(ctx.req.rawHeaders)) {
    throw new InvalidRequest('Two Authorization headers were sent; send one.', { logDetail: 'repeated Authorization header' });
  }
  await next();
}
