/**
 * Node's HTTP parser keeps only the first of repeated `Authorization` headers; a request that
 * carries two is ambiguous (which credentials count?) and is refused, not silently reduced.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoConfig } from '../support/demo-config.js';
import { rawRequest } from '../support/raw-http.js';
import { basic, startServer, type TestServer } from '../support/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer(demoConfig);
});
afterAll(() => server.close());

function post(path: string, headers: string[], body: string): string {
  return (
    `POST ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n` +
    'Content-Type: application/x-www-form-urlencoded\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n${headers.map((h) => `${h}\r\n`).join('')}\r\n${body}`
  );
}

const twice = 'Two Authorization headers were sent; send one.';

describe('two Authorization headers', () => {
  it('answer 400 invalid_request at the token endpoint, even when the first is right', async () => {
    const reply = await rawRequest(
      server.url,
      post('/connect/token', [`Authorization: ${basic('m2m', 'm2m-secret')}`, `Authorization: ${basic('m2m', 'wrong')}`], 'grant_type=client_credentials'),
    );
    expect(reply.status, reply.raw).toBe(400);
    expect(JSON.parse(reply.body)).toEqual({ error: 'invalid_request', error_description: twice });
  });

  it('answer 400 invalid_request at introspection, whatever their case', async () => {
    const reply = await rawRequest(
      server.url,
      post('/connect/introspect', [`authorization: ${basic('api1', 'api1-secret')}`, `AUTHORIZATION: ${basic('api1', 'api1-secret')}`], 'token=abc'),
    );
    expect(reply.status, reply.raw).toBe(400);
    expect(JSON.parse(reply.body)).toEqual({ error: 'invalid_request', error_description: twice });
  });

  it('one Authorization header still works', async () => {
    const reply = await rawRequest(server.url, post('/connect/token', [`Authorization: ${basic('m2m', 'm2m-secret')}`], 'grant_type=client_credentials'));
    expect(reply.status, reply.raw).toBe(200);
    expect(JSON.parse(reply.body)).toMatchObject({ token_type: 'Bearer' });
  });
});
