import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';

const acceptable = /^[\w.:-]{1,128}$/;

/** Gives each request an id (the caller's `X-Request-Id` when it is sane) and echoes it. */
export async function requestId(ctx: Context, next: Next): Promise<void> {
  const given = ctx.get('x-request-id');
  const id = acceptable.test(given) ? given : randomUUID();
  ctx.state.requestId = id;
  ctx.set('X-Request-Id', id);
  await next();
}
