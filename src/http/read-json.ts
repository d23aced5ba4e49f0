/**
 * Reads an `application/json` body (RFC 7591 §3.1: registration requests are JSON), capped at
 * the configured size. Another content type is `invalid_request`; JSON that does not parse is
 * `invalid_client_metadata`, the answer RFC 7591 §3.2.2 gives for metadata it cannot use.
 */
import type { Context } from 'koa';
import { InvalidClientMetadata, InvalidRequest } from '../oauth/errors.js';
import { bodyTextReader } from './read-body-text.js';

export function jsonBodyReader(limits: { readonly bodyBytes: number }): (ctx: Context) => Promise<unknown> {
  const readText = bodyTextReader('application/json', limits);
  return async (ctx) => {
    if (!ctx.request.is('application/json')) throw new InvalidRequest('The request body must be application/json.');
    const text = await readText(ctx);
    try {
      return JSON.parse(text);
    } catch {
      throw new InvalidClientMetadata('The request body is not valid JSON.');
    }
  };
}
