/**
 * Every page's answer to what went wrong while serving it: a plain message id and status,
 * never a stack trace; the cause only in the log, under the request id. Each page words the
 * message in its own view and language.
 */
import type { Context } from 'koa';
import type { Logger } from '../../sdk/contracts.js';
import { isOAuthError } from '../../oauth/errors.js';
import { StoreUnavailableError } from '../../store/store.js';

export type PageFailureId = 'form-unreadable' | 'unavailable' | 'failed';

export interface PageFailure {
  readonly status: number;
  readonly message: PageFailureId;
  readonly headers?: Readonly<Record<string, string>>;
}

export function pageFailure(err: unknown, ctx: Context, logger: Logger, page: string): PageFailure {
  const reqId = ctx.state.requestId as string | undefined;
  const status = (err as { status?: unknown }).status;
  if (isOAuthError(err) || (typeof status === 'number' && status >= 400 && status < 500)) {
    logger.info({ reqId, path: ctx.path, status, detail: isOAuthError(err) ? err.logDetail : undefined }, `${page}: unreadable request`);
    return { status: 400, message: 'form-unreadable' };
  }
  if (err instanceof StoreUnavailableError) {
    logger.warn({ reqId, path: ctx.path, detail: err.message }, `${page}: store unavailable`);
    return { status: 503, message: 'unavailable', headers: { 'Retry-After': '5' } };
  }
  logger.error({ reqId, path: ctx.path, err }, `${page} failed`);
  return { status: 500, message: 'failed' };
}
