/**
 * CORS for browser-based clients. The token, revocation and device authorization endpoints
 * answer an `Origin` listed in some client's `allowedCorsOrigins` (the client is not known
 * before the body is read, so the union is used, as IdentityServer does); discovery and JWKS
 * are public documents readable from anywhere.
 */
import type { Context, Next } from 'koa';

export function corsForClients(allowedOrigins: ReadonlySet<string>) {
  return async function cors(ctx: Context, next: Next): Promise<void> {
    const origin = ctx.get('origin');
    if (!origin || !allowedOrigins.has(origin)) {
      if (ctx.method === 'OPTIONS') {
        ctx.status = 403;
        return;
      }
      await next();
      return;
    }
    ctx.vary('Origin');
    ctx.set('Access-Control-Allow-Origin', origin);
    if (ctx.method === 'OPTIONS') {
      ctx.set('Access-Control-Allow-Methods', 'POST');
      ctx.set('Access-Control-Allow-Headers', 'Authorization, Content-Type');
      ctx.set('Access-Control-Max-Age', '600');
      ctx.status = 204;
      return;
    }
    await next();
  };
}
