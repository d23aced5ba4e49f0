/**
 * Errors of the admin API as RFC 9457 problem details (`application/problem+json`): `type`,
 * `title`, `status`, `detail`, and for a refused body the fields it got wrong (`errors`). One
 * error type, one middleware that writes it; anything unexpected becomes a bare 500 whose cause
 * is logged under the request id, never sent (no stack, no store message).
 */
import type { Context, Next } from 'koa';
import { ClientAdminError } from '../clients/client-admin.js';
import { OAuthError } from '../oauth/errors.js';
import type { Logger } from '../sdk/contracts.js';
import { isStoreUnavailableError } from '../store/store.js';
import { UserAdminError } from '../users/user-admin.js';

/**
 * The problems the admin API answers, by status. `type` is a stable URI per kind (RFC 9457
 * §3.1.1): a tag URI (RFC 4151), which names without pointing anywhere, as no page of ours
 * lives at a fixed address; docs/guides/admin-api.md lists them.
 */
export const problemKinds = {
  400: { slug: 'invalid-request', title: 'The request is not valid' },
  401: { slug: 'unauthenticated', title: 'An admin access token or client certificate is required' },
  403: { slug: 'insufficient-scope', title: 'The caller\'s token or certificate does not allow this' },
  404: { slug: 'not-found', title: 'No such resource' },
  405: { slug: 'method-not-allowed', title: 'The resource does not support this method' },
  409: { slug: 'conflict', title: 'The resource conflicts with what is stored' },
  412: { slug: 'stale-etag', title: 'The resource changed since it was read' },
  413: { slug: 'body-too-large', title: 'The request body is too large' },
  415: { slug: 'unsupported-media-type', title: 'The request body must be application/json' },
  428: { slug: 'if-match-required', title: 'If-Match is required' },
  500: { slug: 'server-error', title: 'The service failed' },
  501: { slug: 'not-implemented', title: 'The method is not one the admin API knows' },
  503: { slug: 'unavailable', title: 'The store is unavailable' },
} as const;

export type ProblemStatus = keyof typeof problemKinds;

export const problemTypeBase = 'tag:svc-token-service,2026:problem:';

export interface ProblemBody {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  readonly errors?: ReadonlyArray<{ readonly path: string; readonly message: string }>;
}

export class AdminProblem extends Error {
  override readonly name = 'AdminProblem';
  constructor(
    readonly status: ProblemStatus,
    readonly detail: string,
    readonly options: { errors?: ProblemBody['errors']; headers?: Record<string, string> } = {},
  ) {
    super(detail);
  }

  body(): ProblemBody {
    const kind = problemKinds[this.status];
    return { type: problemTypeBase + kind.slug, title: kind.title, status: this.status, detail: this.detail, ...(this.options.errors ? { errors: this.options.errors } : {}) };
  }
}

export const notFound = (what: string): AdminProblem => new AdminProblem(404, `${what} does not exist.`);

/** The operations' own refusals (the CLI prints the same sentences) are the caller's: 400. */
function asProblem(err: unknown): AdminProblem | undefined {
  if (err instanceof AdminProblem) return err;
  if (err instanceof ClientAdminError || err instanceof UserAdminError) return new AdminProblem(400, err.message);
  if (isStoreUnavailableError(err)) return new AdminProblem(503, 'The store is unavailable; try again.');
  // The body reader's refusals: an unreadable body (an OAuth error, as on the public port), one too large.
  if (err instanceof OAuthError) return new AdminProblem(err.status === 413 ? 413 : 400, err.description);
  const status = (err as { status?: unknown; expose?: unknown }).status;
  if ((err as { expose?: unknown }).expose === true && typeof status === 'number' && status >= 400 && status < 500) {
    return new AdminProblem(status in problemKinds ? status as ProblemStatus : 400, (err as Error).message);
  }
  return undefined;
}

export function writeProblem(ctx: Context, problem: AdminProblem): void {
  ctx.status = problem.status;
  for (const [name, value] of Object.entries(problem.options.headers ?? {})) ctx.set(name, value);
  ctx.set('Cache-Control', 'no-store');
  ctx.body = problem.body();
  // After the body: Koa sets application/json for an object body.
  ctx.type = 'application/problem+json';
}

export function problemResponses(logger: Logger) {
  return async function problems(ctx: Context, next: Next): Promise<void> {
    try {
      await next();
      if (ctx.body === undefined && ctx.status === 404) throw new AdminProblem(404, `No resource at ${ctx.path}.`);
      if (ctx.body === undefined && ctx.status === 405) throw new AdminProblem(405, `${ctx.method} is not allowed on ${ctx.path}.`, { headers: { Allow: ctx.response.get('Allow') } });
      if (ctx.body === undefined && ctx.status === 501) throw new AdminProblem(501, `${ctx.method} is not a method the admin API answers.`);
    } catch (err) {
      const problem = asProblem(err);
      if (problem) return writeProblem(ctx, problem);
      logger.error({ err, requestId: ctx.state.requestId }, 'admin API request failed');
      writeProblem(ctx, new AdminProblem(500, `The request failed; quote request id ${String(ctx.state.requestId)} to the operator.`));
    }
  };
}
