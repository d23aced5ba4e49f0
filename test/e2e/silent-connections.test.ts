/**
 * Connections that hold a socket without doing their part are closed after a bounded time:
 * one that never sends a byte after `connections.firstByteTimeout`; one that stops half-way
 * through its headers is answered 408; a kept-alive one still serves its next request.
 * The bounds here are short, set in the config; nothing asserts a time beyond them.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoConfig } from '../support/demo-config.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer({
    ...demoConfig,
    connections: { firstByteTimeout: 300, headersTimeout: 1000, requestTimeout: 2000, keepAliveTimeout: 1500 },
  });
});
afterAll(() => server.close());

function open(): Promise<Socket> {
  const { port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => resolve(socket));
    socket.on('error', reject);
  });
}

/** Everything the server sends until it closes the connection, or `undefined` if it has not closed within `ms`. */
function untilClosed(socket: Socket, ms: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    let text = '';
    socket.on('data', (c: Buffer) => (text += c.toString('utf8')));
    const timer = setTimeout(() => resolve(undefined), ms);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(text);
    });
  });
}

const healthz = 'GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n';

describe('silent and idle connections', () => {
  it('closes a connection that never sends a byte, without an answer', async () => {
    const socket = await open();
    // The bound is 300 ms; allow generously for a busy machine.
    expect(await untilClosed(socket, 5000)).toBe('');
  });

  it('answers 408 to a connection that stops half-way through its headers', async () => {
    const socket = await open();
    socket.write('GET /healthz HTTP/1.1\r\nHost: loc');
    const text = await untilClosed(socket, 8000);
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
    expect(JSON.parse(text!.split('\r\n\r\n')[1]!)).toEqual({ error: 'invalid_request', error_description: 'The request took too long to arrive.' });
  });

  it('keeps a kept-alive connection open for its next request, past the first-byte bound', async () => {
    const socket = await open();
    const replies: string[] = [];
    socket.on('data', (c: Buffer) => replies.push(c.toString('utf8')));
    const nextReply = (): Promise<void> =>
      new Promise((resolve) => {
        const n = replies.length;
        const check = (): void => (replies.length > n ? resolve() : void setTimeout(check, 10));
        check();
      });
    socket.write(healthz);
    await nextReply();
    await new Promise((r) => setTimeout(r, 600));
    expect(socket.destroyed).toBe(false);
    socket.write(healthz);
    await nextReply();
    expect(replies.join('')).toMatch(/^HTTP\/1\.1 200 [\s\S]*HTTP\/1\.1 200 /);
    socket.destroy();
  });

  it('closes an idle kept-alive connection after the keep-alive bound', async () => {
    const socket = await open();
    socket.write(healthz);
    const text = await untilClosed(socket, 8000);
    expect(text).toMatch(/^HTTP\/1\.1 200 /);
  });
});
