/**
 * The one place errors become responses. OAuth errors go out as RFC 6749 §5.2 JSON with their
 * status; a store outage becomes 503 `temporarily_unavailable`; anything unexpected becomes a
 * generic `server_error`, with the real cause logged under the request id.
 */
import type { Context, Next } from 'koa';
import type { Logger } from '../sdk/contracts.js';
import {
  InvalidRequest, isOAuthError, OAuthError, safeDescription, ServerError, TemporarilyUnavailable,
} from '../oauth/errors.js';
import { StoreUnavailableError } from '../store/store.js';

interface HttpLikeError {
  status?: number;
  statusCode?: number;
  expose?: boolean;
  type?: string;
}

export function toOAuthError(err: unknown): OAuthError {
  if (isOAuthError(err)) return err;
  if (err instanceof StoreUnavailableError) {
    return new TemporarilyUnavailable(undefined, { logDetail: err.message, headers: { 'Retry-After': '5' } });
  }
  const http = (typeof err === 'object' && err !== null ? err : {}) as HttpLikeError;
  const status = http.status ?? http.statusCode;
  // Body reading errors (raw-body): too large, aborted, bad charset. Client mistakes, not ours.
  if (status === 413 || http.type === 'entity.too.large') {
    return new InvalidRequest('The request body is too large.', { status: 413 });
  }
  if (status === 415 || http.type === 'encoding.unsupported') {
    return new InvalidRequest('Unsupported Content-Encoding or charset; send identity, gzip, deflate or br, in UTF-8.', { status: 415 });
  }
  if (status !== undefined && status >= 400 && status < 500) {
    return new InvalidRequest('The request could not be read.', { status });
  }
  return new ServerError(undefined, { cause: err });
}

export function errorResponse(logger: Logger, metrics?: { storeError(): void }) {
  return async function handleErrors(ctx: Context, next: Next): Promise<void> {
    try {
      await next();
    } catch (err) {
      const oauth = toOAuthError(err);
      if (err instanceof StoreUnavailableError) metrics?.storeError();
      // ctx.ip is the client's address (a trusted proxy's forwarded one, see client-address.ts).
      const log = { reqId: ctx.state.requestId as string, path: ctx.path, address: ctx.ip, error: oauth.code, status: oauth.status };
      if (oauth.code === 'server_error') logger.error({ ...log, err: oauth.cause ?? err }, 'request failed');
      else if (oauth.status >= 500) logger.warn({ ...log, detail: oauth.logDetail }, 'request failed');
      else logger.info({ ...log, detail: oauth.logDetail }, 'request rejected');
      ctx.status = oauth.status;
      ctx.set(oauth.headers);
      ctx.set('Cache-Control', 'no-store');
      ctx.set('Pragma', 'no-cache');
      ctx.type = 'application/json';
      // Checked again here: an error from a plugin's own copy of errors.ts (or any object that
      // carries the brand) reaches the wire through this line too.
      ctx.body = JSON.stringify({ error: oauth.code, error_description: safeDescription(String(oauth.description)) });
    }
  };
}
