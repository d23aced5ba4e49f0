/**
 * Reads an `application/x-www-form-urlencoded` body as text (koa's body parser, capped at the
 * configured size) and parses it into flat string parameters. Any other content type is
 * `invalid_request`.
 */
import { bodyParser } from '@koa/bodyparser';
import type { Context, Middleware, Next } from 'koa';
import { InvalidRequest } from '../oauth/errors.js';
import { parseFormParams } from '../oauth/form-params.js';
import type { FormRequest } from '../endpoints/form-request.js';

export function readForm(limits: { bodyBytes: number; parameters: number }): Middleware {
  const readText = bodyParser({
    enableTypes: ['text'],
    extendTypes: { text: ['application/x-www-form-urlencoded'] },
    textLimit: limits.bodyBytes,
    encoding: 'utf-8',
  });
  return async function readFormBody(ctx: Context, next: Next): Promise<void> {
    if (!ctx.request.is('application/x-www-form-urlencoded')) {
      throw new InvalidRequest('The request body must be application/x-www-form-urlencoded.');
    }
    await readText(ctx, async () => {
      const body = ctx.request.body;
      const request: FormRequest = {
        params: parseFormParams(typeof body === 'string' ? body : '', limits.parameters),
        authorization: ctx.get('authorization') || undefined,
        remoteAddress: ctx.ip,
        requestId: ctx.state.requestId as string,
      };
      ctx.state.form = request;
      await next();
    });
  };
}

export function formOf(ctx: Context): FormRequest {
  return ctx.state.form as FormRequest;
}
