/**
 * The server span of each request (OpenTelemetry semantic conventions, HTTP server spans):
 * named `<method> <route>` by the router's matched route, never by the path a caller sent (a
 * path may hold anything, a token included), with the status, the OAuth error code of a
 * refusal and the request id. Endpoints add the client id and grant type as they learn them
 * (`tracing.annotate`). Installed only when tracing is on.
 */
import { SpanStatusCode } from '@opentelemetry/api';
import type { Context, Middleware, Next } from 'koa';
import type { Tracing } from '../tracing/tracing.js';

/** The `error` member of an RFC 6749 §5.2 body (JSON text, as error-response.ts writes it): a code, safe to record. */
function oauthError(ctx: Context): string | undefined {
  if (ctx.status < 400 || typeof ctx.body !== 'string' || !ctx.response.is('json')) return undefined;
  let error: unknown;
  try {
    error = (JSON.parse(ctx.body) as { error?: unknown }).error;
  } catch {
    return undefined;
  }
  return typeof error === 'string' && /^[a-z_]{1,64}$/.test(error) ? error : undefined;
}

export function traceRequests(tracing: Tracing): Middleware {
  return (ctx: Context, next: Next) =>
    tracing.requestSpan({ method: ctx.method, requestId: String(ctx.state.requestId), headers: ctx.headers }, async (span) => {
      try {
        await next();
      } finally {
        const route: unknown = ctx._matchedRoute;
        if (typeof route === 'string') {
          span.setAttribute('http.route', route);
          span.updateName(`${ctx.method} ${route}`);
        }
        const status = ctx.status;
        const error = oauthError(ctx);
        span.setAttribute('http.response.status_code', status);
        if (error !== undefined) span.setAttribute('oauth.error', error);
        span.setAttribute('svc.outcome', status < 400 ? 'ok' : (error ?? String(status)));
        // A refusal (4xx) is the service working; only a 5xx marks the span failed.
        if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      }
    });
}
