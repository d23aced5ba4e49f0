/**
 * Reads an `application/x-www-form-urlencoded` body as text (`read-body-text.ts`, capped at the
 * configured size) and parses it into flat string parameters. Any other content type is
 * `invalid_request`.
 */
import type { Context, Middleware, Next } from 'koa';
import { InvalidRequest } from '../oauth/errors.js';
import { parseFormParams, type ParameterTable } from '../oauth/form-params.js';
import type { FormRequest } from '../endpoints/form-request.js';
import { bodyTextReader } from './read-body-text.js';
import { clientCertificateOf } from './client-certificate.js';

/** Size limits, and the parameter caps declared by the loaded contributions (the host's alone when absent). */
export interface FormLimits {
  readonly bodyBytes: number;
  readonly parameters: number;
  readonly parameterTable?: ParameterTable;
}

/** Reads a form body into flat parameters; every failure while reading is the client's. */
export function formBodyReader(limits: FormLimits): (ctx: Context) => Promise<Map<string, string>> {
  const readText = bodyTextReader('application/x-www-form-urlencoded', limits);
  return async (ctx) => parseFormParams(await readText(ctx), limits.parameters, limits.parameterTable);
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
      dpop: dpopHeaderOf(ctx),
    };
    ctx.state.form = request;
    await next();
  };
}

export function formOf(ctx: Context): FormRequest {
  return ctx.state.form as FormRequest;
}

/**
 * The `DPoP` header as Node hands it: several headers arrive joined with ", " in one value,
 * which the proof validator refuses (a JWT has no comma; RFC 9449 §4.3 check 1). Read from
 * `headers`, not `headersDistinct`, which builds an array for every header of the request.
 */
export function dpopHeaderOf(ctx: Context): readonly string[] | undefined {
  const value = ctx.req.headers.dpop;
  return typeof value === 'string' ? [value] : value;
}
