/**
 * CORS for browser-based clients. The token, revocation and device authorization endpoints
 * answer an `Origin` listed in some client's `allowedCorsOrigins` (the client is not known
 * before the body is read, so the union is used, as IdentityServer does); discovery and JWKS
 * are public documents readable from anywhere. `allowedOrigins` is asked on each request: the
 * client directory hands out the set it rebuilt at its last reload, so stored clients count too.
 */
import type { Context, Next } from 'koa';
import { InvalidRequest } from '../oauth/errors.js';

export function corsForClients(allowedOrigins: () => ReadonlySet<string>) {
  return async function cors(ctx: Context, next: Next): Promise<void> {
    const origin = ctx.get('origin');
    const allowed = allowedOrigins();
    // Without Origin this is no CORS request, and with no client listing an origin the service
    // does no CORS at all: either way an OPTIONS gets the router's usual `Allow` answer.
    if (!origin || allowed.size === 0) {
      await next();
      return;
    }
    if (!allowed.has(origin)) {
      if (ctx.method === 'OPTIONS') throw new InvalidRequest('The origin is not allowed to call this endpoint.', { status: 403 });
      await next();
      return;
    }
    ctx.vary('Origin');
    ctx.set('Access-Control-Allow-Origin', origin);
    if (ctx.method === 'OPTIONS') {
      ctx.set('Access-Control-Allow-Methods', 'POST');
      // DPoP: a browser client sends its proof in a `DPoP` header (RFC 9449 §4.1).
      ctx.set('Access-Control-Allow-Headers', 'Authorization, Content-Type, DPoP');
      ctx.set('Access-Control-Max-Age', '600');
      ctx.status = 204;
      return;
    }
    // Beyond the CORS-safelisted response headers, a browser client must read these to back off
    // (429), see the challenge (401), quote the request id and use the DPoP nonce (RFC 9449 §8).
    ctx.set('Access-Control-Expose-Headers', 'Retry-After, WWW-Authenticate, X-Request-Id, DPoP-Nonce');
    await next();
  };
}
