/**
 * Reads an `application/x-www-form-urlencoded` body as text (koa's body parser, capped at the
 * configured size) and parses it into flat string parameters. Any other content type is
 * `invalid_request`.
 */
import { bodyParser } from '@koa/bodyparser';
import type { Context, Middleware, Next } from 'koa';
import { InvalidRequest } from '../oauth/errors.js';
import { parseFormParams, type ParameterTable } from '../oauth/form-params.js';
import type { FormRequest } from '../endpoints/form-request.js';
import { clientCertificateOf } from './client-certificate.js';

/** Reads a form body into flat parameters; every failure while reading is the client's (see `unreadableBody`). */
/** Size limits, and the parameter caps declared by the loaded contributions (the host's alone when absent). */
export interface FormLimits {
  readonly bodyBytes: number;
  readonly parameters: number;
  readonly parameterTable?: ParameterTable;
}

export function formBodyReader(limits: FormLimits): (ctx: Context) => Promise<Map<string, string>> {
  const readText = bodyParser({
    enableTypes: ['text'],
    extendTypes: { text: ['application/x-www-form-urlencoded'] },
    textLimit: limits.bodyBytes,
    encoding: 'utf-8',
  });
  return async (ctx) => {
    let body: unknown;
    try {
      await readText(ctx, async () => {
        body = ctx.request.body;
      });
    } catch (err) {
      throw unreadableBody(err);
    }
    return parseFormParams(typeof body === 'string' ? body : '', limits.parameters, limits.parameterTable);
  };
}

export function readForm(limits: FormLimits): Middleware {
  const readBody = formBodyReader(limits);
  return async function readFormBody(ctx: Context, next: Next): Promise<void> {
    if (!ctx.request.is('application/x-www-form-urlencoded')) {
      throw new InvalidRequest('The request body must be application/x-www-form-urlencoded.');
    }
    const request: FormRequest = {
      params: await readBody(ctx),
      authorization: ctx.get('authorization') || undefined,
      remoteAddress: ctx.ip,
      requestId: ctx.state.requestId as string,
      clientCertificate: clientCertificateOf(ctx),
      dpop: ctx.req.headersDistinct.dpop,
    };
    ctx.state.form = request;
    await next();
  };
}

/**
 * Anything that fails while the body is read is the client's doing: too large (413), an
 * unsupported encoding (415), or bytes that do not inflate as their Content-Encoding says (a
 * zlib error, with no status of its own), which would otherwise pass for a server error.
 */
function unreadableBody(err: unknown): unknown {
  const status = (err as { status?: unknown } | null)?.status;
  if (typeof status === 'number' && status >= 400 && status < 500) return err;
  const code = (err as { code?: unknown } | null)?.code;
  return new InvalidRequest('The request could not be read.', { logDetail: `body: ${typeof code === 'string' ? code : 'unreadable'}` });
}

export function formOf(ctx: Context): FormRequest {
  return ctx.state.form as FormRequest;
}
