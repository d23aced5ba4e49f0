/**
 * The serializer is the last line: whatever a plugin throws (even an OAuth error from its own
 * copy of errors.ts, or an object that only carries the brand), the body's `error_description`
 * stays within RFC 6749 §5.2's character set.
 */
import { describe, expect, it } from 'vitest';
import type { Context } from 'koa';
import { errorResponse } from '../../src/http/error-response.js';

const silent = { debug() {}, info() {}, warn() {}, error() {}, child() { return silent; } };

async function answer(thrown: unknown): Promise<{ status: number; body: unknown }> {
  const headers: Record<string, string> = {};
  const ctx = {
    state: { requestId: 'r1' }, path: '/connect/token', status: 200, type: '', body: undefined as unknown,
    set(name: string | Record<string, string>, value?: string) {
      if (typeof name === 'string') headers[name] = value ?? '';
      else Object.assign(headers, name);
    },
  };
  await errorResponse(silent)(ctx as unknown as Context, async () => { throw thrown; });
  return { status: ctx.status, body: JSON.parse(ctx.body as string) };
}

describe('error response serializer', () => {
  it('keeps a foreign OAuth error\'s description within the RFC 6749 §5.2 character set', async () => {
    const foreign = {
      [Symbol.for('svc.OAuthError')]: true,
      code: 'invalid_grant', status: 400, description: 'bad "token" \\ \u00e9', headers: {}, logDetail: undefined,
    };
    expect(await answer(foreign)).toEqual({ status: 400, body: { error: 'invalid_grant', error_description: "bad 'token' / ?" } });
  });
});
