/**
 * Reads an `application/json` body (RFC 7591 §3.1: registration requests are JSON), capped at
 * the configured size. Another content type is `invalid_request`; JSON that does not parse is
 * `invalid_client_metadata`, the answer RFC 7591 §3.2.2 gives for metadata it cannot use.
 */
import { bodyParser } from '@koa/bodyparser';
import type { Context } from 'koa';
import { InvalidClientMetadata, InvalidRequest } from '../oauth/errors.js';

export function jsonBodyReader(limits: { readonly bodyBytes: number }): (ctx: Context) => Promise<unknown> {
  const readText = bodyParser({ enableTypes: ['text'], extendTypes: { text: ['application/json'] }, textLimit: limits.bodyBytes, encoding: 'utf-8' });
  return async (ctx) => {
    if (!ctx.request.is('application/json')) throw new InvalidRequest('The request body must be application/json.');
    let text: unknown;
    try {
      await readText(ctx, async () => {
        text = ctx.request.body;
      });
    } catch (err) {
      const status = (err as { status?: unknown } | null)?.status;
      if (typeof status === 'number' && status >= 400 && status < 500) throw err;
      throw new InvalidRequest('The request could not be read.');
    }
    try {
      return JSON.parse(typeof text === 'string' ? text : '');
    } catch {
      throw new InvalidClientMetadata('The request body is not valid JSON.');
    }
  };
}
