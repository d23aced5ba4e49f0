/**
 * Maps the declared operations onto HTTP: authenticates, checks the access the operation needs,
 * parses the path parameters, the query and the body with the operation's own zod declarations
 * (anything they do not allow, an unknown query parameter or body field included, is 400), asks
 * for `If-Match` where the operation changes or deletes, then runs the handler.
 */
import Router from '@koa/router';
import type { Context } from 'koa';
import { z } from '../config/fields.js';
import { bodyTextReader } from '../http/read-body-text.js';
import { allow, type Operator } from './authentication.js';
import { requireIfMatch } from './etag.js';
import type { AdminOperation } from './operation.js';
import { AdminProblem } from './problem.js';

const emptyQuery = z.strictObject({});

function issuesOf(error: z.ZodError, at: string): Array<{ path: string; message: string }> {
  return error.issues.flatMap((issue) => {
    const path = [at, ...issue.path.map(String)];
    // An unknown field is named, with its own path: the declarations' wording ("expected a client object") does not say which.
    if (issue.code === 'unrecognized_keys') return issue.keys.map((key) => ({ path: [...path, key].join('.'), message: 'unknown field' }));
    return [{ path: path.join('.'), message: issue.message }];
  });
}

function parsed<S extends z.ZodType>(schema: S, value: unknown, at: string): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) {
    const errors = issuesOf(result.error, at);
    throw new AdminProblem(400, `The ${at} is not valid: ${errors.map((e) => `${e.path}: ${e.message}`).join('; ')}.`, { errors });
  }
  return result.data;
}

const isPlain = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The parsed body without the fields the declarations' defaults filled in: a client written
 * through the API is stored with the fields its caller gave, as `svc clients add` stores it, so
 * a default keeps being the node's to apply (a later release's, too) and `show` prints the same
 * entry whichever wrote it.
 */
function asGiven(output: unknown, input: unknown): unknown {
  if (isPlain(output) && isPlain(input)) {
    return Object.fromEntries(Object.entries(output).filter(([key]) => key in input).map(([key, value]) => [key, asGiven(value, input[key])]));
  }
  if (Array.isArray(output) && Array.isArray(input) && output.length === input.length) return output.map((value, i) => asGiven(value, input[i]));
  return output;
}

/** `/clients/{clientId}` as the router's `/clients/:clientId`. */
export const routerPath = (path: string): string => path.replace(/\{(\w+)\}/g, ':$1');

export function createAdminRouter(operations: readonly AdminOperation[], deps: {
  authenticate(ctx: Context): Promise<Operator>;
  limits: { readonly bodyBytes: number };
  /** Extra routes before the operations (the OpenAPI document). */
  open?: (router: Router) => void;
}): Router {
  const router = new Router();
  const readText = bodyTextReader('application/json', deps.limits);
  deps.open?.(router);

  async function bodyOf(ctx: Context, operation: AdminOperation): Promise<unknown> {
    const sent = ctx.request.length !== undefined && ctx.request.length > 0 || ctx.get('transfer-encoding') !== '';
    if (!operation.body) {
      if (sent) throw new AdminProblem(400, `${operation.method.toUpperCase()} ${operation.path} takes no body.`);
      return undefined;
    }
    if (!ctx.request.is('application/json')) throw new AdminProblem(415, 'The request body must be application/json.');
    const text = await readText(ctx);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new AdminProblem(400, 'The request body is not valid JSON.');
    }
    return asGiven(parsed(operation.body, json, 'body'), json);
  }

  for (const operation of operations) {
    router[operation.method](routerPath(operation.path), async (ctx: Context) => {
      const operator = await deps.authenticate(ctx);
      ctx.state.operator = operator;
      allow(operator, operation.access);
      const params = operation.params ? parsed(operation.params, { ...ctx.params }, 'path') : {};
      const query = parsed(operation.query ?? emptyQuery, { ...ctx.query }, 'query');
      const body = await bodyOf(ctx, operation);
      const ifMatch = operation.ifMatch ? requireIfMatch(ctx.get('if-match') || undefined) : undefined;
      const reply = await operation.handle({ params, query, body, ifMatch, operator });
      ctx.status = reply.status;
      ctx.set('Cache-Control', 'no-store');
      if (reply.etag !== undefined) ctx.set('ETag', reply.etag);
      if (reply.location !== undefined) ctx.set('Location', reply.location);
      if (reply.body !== undefined) ctx.body = reply.body;
    });
  }
  return router;
}
