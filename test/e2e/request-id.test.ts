/**
 * X-Request-Id over HTTP: a sane caller id is echoed, anything else is replaced by a generated
 * one, and every response carries one, errors included. The id is the one in the log.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoConfig } from '../support/demo-config.js';
import { basic, startServer, type TestServer } from '../support/server.js';

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ ...demoConfig, limits: { bodyBytes: 1024 } });
});
afterAll(async () => {
  await server?.close();
});

interface Case {
  readonly name: string;
  readonly path: string;
  readonly init: RequestInit;
  readonly status: number;
}

const form = { 'content-type': 'application/x-www-form-urlencoded' };
const cases: Case[] = [
  { name: 'a token response', path: '/connect/token', status: 200,
    init: { method: 'POST', headers: { ...form, authorization: basic('m2m', 'm2m-secret') }, body: 'grant_type=client_credentials' } },
  { name: 'a failed authentication', path: '/connect/token', status: 401,
    init: { method: 'POST', headers: { ...form, authorization: basic('m2m', 'wrong') }, body: 'grant_type=client_credentials' } },
  { name: 'a body over the limit', path: '/connect/token', status: 413,
    init: { method: 'POST', headers: form, body: `grant_type=client_credentials&x=${'a'.repeat(2000)}` } },
  { name: 'a wrong content type', path: '/connect/token', status: 400,
    init: { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' } },
  { name: 'a wrong method', path: '/connect/token', status: 405, init: { method: 'GET' } },
  { name: 'an unknown path', path: '/nothing/here', status: 404, init: { method: 'GET' } },
  { name: 'discovery', path: '/.well-known/openid-configuration', status: 200, init: { method: 'GET' } },
  { name: 'the JWKS', path: '/.well-known/openid-configuration/jwks', status: 200, init: { method: 'GET' } },
  { name: '/healthz', path: '/healthz', status: 200, init: { method: 'GET' } },
  { name: 'the device page', path: '/device', status: 200, init: { method: 'GET' } },
];

async function call(c: Case, requestId?: string): Promise<Response> {
  const headers = new Headers(c.init.headers);
  if (requestId !== undefined) headers.set('x-request-id', requestId);
  const res = await fetch(`${server.url}${c.path}`, { ...c.init, headers });
  await res.arrayBuffer();
  expect(res.status).toBe(c.status);
  return res;
}

describe('X-Request-Id', () => {
  it.each(cases.map((c) => [c.name, c] as const))('echoes a sane caller id on %s', async (_name, c) => {
    const res = await call(c, 'trace-4711.abc:DEF_ghi-1');
    expect(res.headers.get('x-request-id')).toBe('trace-4711.abc:DEF_ghi-1');
  });

  it.each(cases.map((c) => [c.name, c] as const))('generates a UUID on %s when the caller sends none', async (_name, c) => {
    const res = await call(c);
    expect(res.headers.get('x-request-id')).toMatch(uuid);
  });

  it('generates a new id for every request', async () => {
    const ids = new Set<string | null>();
    for (let i = 0; i < 5; i++) ids.add((await call(cases[9]!)).headers.get('x-request-id'));
    expect(ids.size).toBe(5);
  });

  it('accepts an id of exactly 128 characters', async () => {
    const id = 'a'.repeat(128);
    expect((await call(cases[8]!, id)).headers.get('x-request-id')).toBe(id);
  });

  it.each([
    ['too long (129 characters)', 'a'.repeat(129)],
    ['a space', 'abc def'],
    ['a slash', 'abc/def'],
    ['markup', '<script>alert(1)</script>'],
    ['a quote', 'abc"def'],
    ['a comma (two ids joined)', 'abc,def'],
    ['a semicolon', 'abc;def'],
    ['a percent sign', 'abc%0d%0aSet-Cookie'],
  ])('replaces an insane id (%s) with a generated one, on success and error alike', async (_case, insane) => {
    for (const c of [cases[0]!, cases[1]!, cases[5]!]) {
      const res = await call(c, insane);
      expect(res.headers.get('x-request-id')).toMatch(uuid);
    }
  });

  it('replaces an id sent twice (two X-Request-Id headers) with a generated one', async () => {
    const res = await fetch(`${server.url}/healthz`, { headers: [['x-request-id', 'one'], ['x-request-id', 'two']] });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toMatch(uuid);
  });

  it('logs a rejected request under the id it echoed', async () => {
    const res = await call(cases[1]!, 'log-correlation-42');
    expect(res.headers.get('x-request-id')).toBe('log-correlation-42');
    expect(server.logs.filter((l) => l.reqId === 'log-correlation-42')).toEqual([
      expect.objectContaining({ msg: 'request rejected', error: 'invalid_client', status: 401, path: '/connect/token' }),
    ]);
  });
});
