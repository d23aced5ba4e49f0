/**
 * Methods the service does not implement (issue 22). RFC 9110 §15.6.2: 501 is the answer to a
 * method the server does not support for any resource, and it is no OAuth error, so its body is a
 * plain `{ message }` without `error`. A method the service knows, on a path that exists but does
 * not take it, stays 405 with `Allow` (§15.5.6).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret } from '../../src/sdk/hash.js';
import { startServer, type TestServer } from '../support/server.js';
import { rawRequest, type RawReply } from '../support/raw-http.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer({
    apiScopes: [{ name: 'api1.read' }],
    clients: [{ clientId: 'm2m', clientSecrets: [{ value: hashSecret('m2m-secret') }], allowedGrantTypes: ['client_credentials'], allowedScopes: ['api1.read'] }],
  });
});
afterAll(() => server.close());

const request = (method: string, path: string) => rawRequest(server.url, `${method} ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`);

function expectNotImplemented(reply: RawReply): void {
  expect(reply.status, reply.raw).toBe(501);
  expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
  expect(reply.headers.get('cache-control')).toBe('no-store');
  expect(reply.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  expect(JSON.parse(reply.body)).toEqual({ message: 'Method not implemented.' });
}

describe('a method the service implements for no resource is 501 with a plain JSON body', () => {
  it.each([
    ['TRACE', '/connect/token'],
    ['TRACE', '/no/such/path'],
    ['PROPFIND', '/connect/token'],
    ['PROPFIND', '/'],
    ['QUERY', '/.well-known/openid-configuration'],
    ['M-SEARCH', '/healthz'],
    ['MKCOL', '/device'],
  ])('%s %s', async (method, path) => {
    expectNotImplemented(await request(method, path));
  });

  it.each([
    ['a made-up method token', 'BREW'],
    ['a lower-case method (methods are case-sensitive, RFC 9110 §9.1)', 'post'],
    ['a long made-up token', `X${'Y'.repeat(200)}`],
  ])('%s, which Node itself refuses to parse, is 501 too', async (_case, method) => {
    const reply = await request(method, '/connect/token');
    expectNotImplemented(reply);
    expect(reply.headers.get('connection')).toBe('close');
  });

  it('CONNECT is 501 too, not a dropped connection', async () => {
    expectNotImplemented(await rawRequest(server.url, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n'));
  });

  it('names the methods the path takes in Allow when the path exists', async () => {
    // OPTIONS is there for CORS preflights: a client from the database may list an origin at any time.
    expect((await request('TRACE', '/connect/token')).headers.get('allow')).toBe('OPTIONS, POST');
    expect((await request('TRACE', '/no/such/path')).headers.has('allow')).toBe(false);
  });
});

describe('what is not an unknown method keeps its answer', () => {
  it('a known method on a path that does not take it is 405 with Allow', async () => {
    const reply = await request('DELETE', '/connect/token');
    expect(reply.status).toBe(405);
    expect(reply.headers.get('allow')).toBe('OPTIONS, POST');
  });

  it('bytes that are no request line at all are 400, not 501', async () => {
    const reply = await rawRequest(server.url, '\x00\x01\x02 garbage\r\n\r\n');
    expect(reply.status, reply.raw).toBe(400);
    expect(JSON.parse(reply.body)).toEqual({ error: 'invalid_request', error_description: 'The request is not valid HTTP.' });
  });
});
