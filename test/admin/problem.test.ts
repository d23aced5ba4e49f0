import type { Context } from 'koa';
import { describe, expect, it } from 'vitest';
import { AdminProblem, problemResponses } from '../../src/admin/problem.js';
import { ClientAdminError } from '../../src/clients/client-admin.js';
import { StoreUnavailableError } from '../../src/store/store.js';
import { UserAdminError } from '../../src/users/user-admin.js';

function fakeContext() {
  const headers: Record<string, string> = {};
  return { status: 404, body: undefined as unknown, type: '', path: '/clients', method: 'GET', state: { requestId: 'req-1' }, headers, set: (name: string, value: string) => void (headers[name] = value), response: { get: () => '' } };
}

async function answer(thrown: unknown) {
  const logged: unknown[] = [];
  const ctx = fakeContext();
  const logger = { error: (obj: unknown) => void logged.push(obj), warn: () => undefined, info: () => undefined, debug: () => undefined };
  await problemResponses(logger as never)(ctx as unknown as Context, async () => {
    throw thrown;
  });
  return { ctx, logged };
}

describe('admin problems (RFC 9457)', () => {
  it('writes a problem as application/problem+json, never cached', async () => {
    const { ctx } = await answer(new AdminProblem(412, 'changed', { headers: { 'X-Test': '1' } }));
    expect(ctx).toMatchObject({ status: 412, type: 'application/problem+json', headers: { 'Cache-Control': 'no-store', 'X-Test': '1' } });
    expect(ctx.body).toEqual({ type: 'tag:svc-token-service,2026:problem:stale-etag', title: 'The resource changed since it was read', status: 412, detail: 'changed' });
  });

  it('answers the operations\' refusals as 400 with their sentence, a store outage as 503', async () => {
    expect((await answer(new ClientAdminError('client "x" is not valid'))).ctx).toMatchObject({ status: 400, body: { detail: 'client "x" is not valid' } });
    expect((await answer(new UserAdminError('too short'))).ctx).toMatchObject({ status: 400, body: { detail: 'too short' } });
    expect((await answer(new StoreUnavailableError('PostgreSQL store unavailable during get: ECONNREFUSED.'))).ctx).toMatchObject({ status: 503, body: { detail: 'The store is unavailable; try again.' } });
  });

  it('answers anything else as a bare 500 naming the request id; the cause only in the log', async () => {
    const { ctx, logged } = await answer(new Error('secret internals at line 42'));
    expect(ctx).toMatchObject({ status: 500, body: { status: 500, detail: 'The request failed; quote request id req-1 to the operator.' } });
    expect(JSON.stringify(ctx.body)).not.toContain('internals');
    expect(logged).toEqual([expect.objectContaining({ requestId: 'req-1' })]);
  });
});
