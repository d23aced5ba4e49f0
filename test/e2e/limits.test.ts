/**
 * The documented limits over HTTP, beyond what token-endpoint.test.ts already pins for the
 * token endpoint (64 KiB body, 50 parameters, client_id/client_secret/scope caps): the same body
 * and count limits on the other form endpoints, bodies that grow on the way in (chunked,
 * compressed), every other per-parameter cap, and what Node rejects before Koa sees it (headers
 * over 16 KiB, malformed HTTP). Each is a JSON error with its exact status, never a 500.
 */
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserConfig } from '../../src/config/schema.js';
import { hashSecret } from '../../src/sdk/hash.js';
import { demoConfig } from '../support/demo-config.js';
import { rawRequest, type RawReply } from '../support/raw-http.js';
import { basic, startServer, type TestServer } from '../support/server.js';

const deviceGrant = 'urn:ietf:params:oauth:grant-type:device_code';
const jwtBearer = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

const config: UserConfig = {
  ...demoConfig,
  clients: [
    ...demoConfig.clients!,
    {
      clientId: 'tv',
      clientSecrets: [{ value: hashSecret('tv-secret') }],
      allowedGrantTypes: [deviceGrant],
      allowedScopes: ['api1.read'],
    },
  ],
};

const asM2m = basic('m2m', 'm2m-secret');

interface Reply {
  status: number;
  headers: Headers;
  text: string;
  body: Record<string, unknown>;
}

let server: TestServer;
beforeAll(async () => {
  server = await startServer(config);
});
afterAll(async () => {
  await server?.close();
});

async function post(path: string, body: string | Uint8Array, headers: Record<string, string>): Promise<Reply> {
  const res = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body,
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

function expectError(reply: Reply, status: number, error: string, description: string): void {
  expect({ status: reply.status, body: reply.body }, reply.text).toEqual({ status, body: { error, error_description: description } });
  expect(reply.headers.get('content-type')).toBe('application/json; charset=utf-8');
  expect(reply.headers.get('cache-control')).toBe('no-store');
}

const tooLarge = 'The request body is too large.';
const tooMany = 'Too many parameters (at most 50).';

/** The other form endpoints, each with a request that succeeds. */
const endpoints = [
  { name: 'introspection', path: '/connect/introspect', auth: basic('api1', 'api1-secret'), params: 'token=unknown', ok: 200 },
  { name: 'revocation', path: '/connect/revocation', auth: asM2m, params: 'token=unknown', ok: 200 },
  { name: 'device authorization', path: '/connect/deviceauthorization', auth: basic('tv', 'tv-secret'), params: 'scope=api1.read', ok: 200 },
] as const;

describe.each(endpoints)('$name endpoint', ({ path, auth, params, ok }) => {
  it('serves a request just under the body limit', async () => {
    const filler = Array.from({ length: 30 }, (_, i) => `p${i}=${'a'.repeat(2000)}`).join('&');
    const reply = await post(path, `${params}&${filler}`, { authorization: auth });
    expect(reply.status, reply.text).toBe(ok);
  });

  it('answers a body over 64 KiB with 413 invalid_request', async () => {
    expectError(await post(path, `${params}&x=${'a'.repeat(64 * 1024)}`, { authorization: auth }), 413, 'invalid_request', tooLarge);
  });

  it('answers 51 parameters with 400 invalid_request, and serves 50', async () => {
    const extra = (n: number) => Array.from({ length: n }, (_, i) => `p${i}=1`).join('&');
    const served = await post(path, `${params}&${extra(49)}`, { authorization: auth });
    expect(served.status, served.text).toBe(ok);
    expectError(await post(path, `${params}&${extra(50)}`, { authorization: auth }), 400, 'invalid_request', tooMany);
  });
});

describe('bodies that grow on the way in', () => {
  it('answers a chunked body (no Content-Length) over 64 KiB with 413', async () => {
    const chunks = [`grant_type=client_credentials&x=`, 'a'.repeat(40 * 1024), 'a'.repeat(40 * 1024)];
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const c of chunks) controller.enqueue(new TextEncoder().encode(c));
        controller.close();
      },
    });
    const res = await fetch(`${server.url}/connect/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: asM2m },
      body: stream,
      duplex: 'half',
    } as RequestInit & { duplex: 'half' });
    const text = await res.text();
    expect(res.status, text).toBe(413);
    expect(JSON.parse(text)).toEqual({ error: 'invalid_request', error_description: tooLarge });
  });

  it('serves a gzip-compressed form body', async () => {
    const reply = await post('/connect/token', gzipSync('grant_type=client_credentials&scope=api1.read'), {
      authorization: asM2m,
      'content-encoding': 'gzip',
    });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.scope).toBe('api1.read');
  });

  it('answers a small gzip body that inflates past 64 KiB with 413', async () => {
    const bomb = gzipSync(`grant_type=client_credentials&x=${'a'.repeat(1024 * 1024)}`);
    expect(bomb.length).toBeLessThan(4096);
    expectError(await post('/connect/token', bomb, { authorization: asM2m, 'content-encoding': 'gzip' }), 413, 'invalid_request', tooLarge);
  });

  it('answers an unknown Content-Encoding with 415 invalid_request', async () => {
    const reply = await post('/connect/token', 'grant_type=client_credentials', { authorization: asM2m, 'content-encoding': 'compress' });
    expect({ status: reply.status, error: reply.body.error }, reply.text).toEqual({ status: 415, error: 'invalid_request' });
    expect(reply.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(reply.body.error_description).toEqual(expect.any(String));
  });

  // A client mistake like any other unreadable body: 400, never server_error.
  it.each([
    ['gzip', Buffer.from('grant_type=client_credentials')],
    ['deflate', Buffer.from('grant_type=client_credentials')],
    ['br', Buffer.from('grant_type=client_credentials')],
    ['gzip', gzipSync('grant_type=client_credentials').subarray(0, 20)],
  ])('answers a body that does not decode as its Content-Encoding (%s) with 400 invalid_request', async (encoding, body) => {
    const reply = await post('/connect/token', body, { authorization: asM2m, 'content-encoding': encoding });
    expectError(reply, 400, 'invalid_request', 'The request could not be read.');
  });
});

describe('per-parameter caps', () => {
  const tooLong = (name: string, cap: number) => `Parameter ${name} is too long (at most ${cap} characters).`;
  const token = (params: Record<string, string>, headers: Record<string, string> = { authorization: asM2m }) =>
    post('/connect/token', new URLSearchParams(params).toString(), headers);

  it('token at introspection: 16,384 characters are read, 16,385 are 400', async () => {
    const introspect = (value: string) =>
      post('/connect/introspect', new URLSearchParams({ token: value }).toString(), { authorization: basic('api1', 'api1-secret') });
    const atCap = await introspect('t'.repeat(16_384));
    expect({ status: atCap.status, body: atCap.body }).toEqual({ status: 200, body: { active: false } });
    expectError(await introspect('t'.repeat(16_385)), 400, 'invalid_request', tooLong('token', 16_384));
  });

  it('token at revocation: 16,384 characters are read, 16,385 are 400', async () => {
    const revoke = (value: string) => post('/connect/revocation', new URLSearchParams({ token: value }).toString(), { authorization: asM2m });
    const atCap = await revoke('t'.repeat(16_384));
    expect({ status: atCap.status, text: atCap.text }).toEqual({ status: 200, text: '' });
    expectError(await revoke('t'.repeat(16_385)), 400, 'invalid_request', tooLong('token', 16_384));
  });

  it.each(['subject_token', 'actor_token'])('%s: 16,384 characters are read, 16,385 are 400', async (name) => {
    const atCap = await token({ grant_type: 'client_credentials', [name]: 's'.repeat(16_384) });
    expect(atCap.status, atCap.text).toBe(200);
    expectError(await token({ grant_type: 'client_credentials', [name]: 's'.repeat(16_385) }), 400, 'invalid_request', tooLong(name, 16_384));
  });

  it('client_assertion: 51,200 characters are read (and judged: invalid_client), 51,201 are 400', async () => {
    const atCap = await token({ grant_type: 'client_credentials', client_assertion_type: jwtBearer, client_assertion: 'a'.repeat(51_200) }, {});
    expect({ status: atCap.status, error: atCap.body.error }).toEqual({ status: 401, error: 'invalid_client' });
    expectError(
      await token({ grant_type: 'client_credentials', client_assertion_type: jwtBearer, client_assertion: 'a'.repeat(51_201) }, {}),
      400,
      'invalid_request',
      tooLong('client_assertion', 51_200),
    );
  });

  it('any other parameter: 2,048 characters are read, 2,049 are 400', async () => {
    const atCap = await token({ grant_type: 'client_credentials', resource_hint: 'r'.repeat(2048) });
    expect(atCap.status, atCap.text).toBe(200);
    expectError(
      await token({ grant_type: 'client_credentials', resource_hint: 'r'.repeat(2049) }),
      400,
      'invalid_request',
      'A parameter is too long (at most 2048 characters).',
    );
  });

  // Values that are short by nature get IdentityServer's shorter caps.
  it.each([
    ['grant_type', 200],
    ['client_assertion_type', 200],
    ['username', 100],
    ['password', 100],
    ['refresh_token', 100],
    ['device_code', 100],
    ['user_code', 100],
  ])('%s over %i characters is 400', async (name, cap) => {
    expectError(await token({ grant_type: 'client_credentials', [name]: 'v'.repeat(cap + 1) }), 400, 'invalid_request', tooLong(name, cap));
  });

  it('counts characters, not bytes: a client_id of 100 "é" is read, 101 are 400', async () => {
    const atCap = await token({ grant_type: 'client_credentials', client_id: 'é'.repeat(100), client_secret: 'x' }, {});
    expect({ status: atCap.status, error: atCap.body.error }).toEqual({ status: 401, error: 'invalid_client' });
    expectError(
      await token({ grant_type: 'client_credentials', client_id: 'é'.repeat(101), client_secret: 'x' }, {}),
      400,
      'invalid_request',
      tooLong('client_id', 100),
    );
  });

  it('applies the cap to the decoded value: 2,048 percent-encoded characters are read', async () => {
    const atCap = await post('/connect/token', `grant_type=client_credentials&hint=${'%41'.repeat(2048)}`, { authorization: asM2m });
    expect(atCap.status, atCap.text).toBe(200);
    const over = await post('/connect/token', `grant_type=client_credentials&hint=${'%41'.repeat(2049)}`, { authorization: asM2m });
    expectError(over, 400, 'invalid_request', 'A parameter is too long (at most 2048 characters).');
  });
});

/** Writes raw bytes to the server and reads everything it answers until it closes the connection. */
const raw = (request: string | Buffer): Promise<RawReply> => rawRequest(server.url, request);

function expectRawError(reply: RawReply, status: number, description: string): void {
  expect(reply.status, reply.raw).toBe(status);
  expect(reply.headers.get('content-type')).toBe('application/json');
  expect(reply.headers.get('content-length')).toBe(String(Buffer.byteLength(reply.body)));
  expect(reply.headers.get('cache-control')).toBe('no-store');
  expect(reply.headers.get('connection')).toBe('close');
  expect(reply.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  expect(JSON.parse(reply.body)).toEqual({ error: 'invalid_request', error_description: description });
}

describe('what Node rejects before Koa', () => {
  const tooLargeHeaders = 'The request headers are too large (at most 16384 bytes).';
  const notHttp = 'The request is not valid HTTP.';
  const get = (headers: string) => `GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n${headers}\r\n`;

  it('serves headers just under 16 KiB', async () => {
    const reply = await raw(get(`X-Pad: ${'a'.repeat(15 * 1024)}\r\n`));
    expect(reply.status, reply.raw.slice(0, 300)).toBe(200);
    expect(JSON.parse(reply.body)).toEqual({ status: 'ok' });
  });

  it('answers one header over 16 KiB with 431 JSON', async () => {
    expectRawError(await raw(get(`X-Pad: ${'a'.repeat(17 * 1024)}\r\n`)), 431, tooLargeHeaders);
  });

  it('answers many small headers adding up to over 16 KiB with 431 JSON', async () => {
    const many = Array.from({ length: 400 }, (_, i) => `X-H${i}: ${'b'.repeat(40)}\r\n`).join('');
    expectRawError(await raw(get(many)), 431, tooLargeHeaders);
  });

  it('answers a huge header on a token request with 431 JSON, not a token', async () => {
    const body = 'grant_type=client_credentials';
    const request =
      `POST /connect/token HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${asM2m}\r\n` +
      `Content-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\nX-Pad: ${'a'.repeat(20_000)}\r\n\r\n${body}`;
    const reply = await raw(request);
    expectRawError(reply, 431, tooLargeHeaders);
    expect(reply.raw).not.toContain('access_token');
  });

  it.each([
    ['a header line without a colon', 'GET /healthz HTTP/1.1\r\nHost: localhost\r\nthis is no header\r\n\r\n'],
    ['a space in the header name', 'GET /healthz HTTP/1.1\r\nHost: localhost\r\nX Bad: 1\r\n\r\n'],
    ['an invalid method', 'G(T /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n'],
    ['an unknown HTTP version', 'GET /healthz HTTP/9.7\r\nHost: localhost\r\n\r\n'],
    ['plain garbage', '\u0001\u0002\u0003 hello\r\n\r\n'],
    ['a non-numeric Content-Length', 'POST /connect/token HTTP/1.1\r\nHost: localhost\r\nContent-Length: ten\r\n\r\n'],
    ['two different Content-Lengths', 'POST /connect/token HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab'],
    [
      'Content-Length with Transfer-Encoding: chunked (request smuggling)',
      'POST /connect/token HTTP/1.1\r\nHost: localhost\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    ],
    ['a bad chunk size', 'POST /connect/token HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\nContent-Type: application/x-www-form-urlencoded\r\n\r\nzz\r\nab\r\n0\r\n\r\n'],
    ['a bare LF in a header value', 'GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-A: 1\nX-B: 2\r\n\r\n'],
  ])('answers %s with 400 JSON', async (_case, request) => {
    expectRawError(await raw(request), 400, notHttp);
  });
});
