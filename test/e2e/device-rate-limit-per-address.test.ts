/**
 * Wrong user codes are counted per client address (RFC 8628 §5.1; issue 6): an address that
 * guessed too often is blocked, another address is not. Two loopback addresses stand in for two
 * networks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'node:http';
import { startServer, type TestServer } from '../support/server.js';
import { codesFor, deviceConfig, hiddenFields } from '../device/helpers.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer(await deviceConfig({ deviceFlow: { maxFailedAttempts: 2, failedAttemptsWindow: 600 } }));
});
afterAll(() => server.close());

/** A cookie-keeping browser whose connections come from `localAddress`. */
function browserAt(localAddress: string) {
  let cookie = '';
  const send = (method: 'GET' | 'POST', body?: string) =>
    new Promise<{ status: number; html: string }>((resolve, reject) => {
      const { hostname, port } = new URL(server.url);
      const req = request(
        {
          host: hostname, port, path: '/device', method, localAddress, agent: false,
          headers: { ...(cookie ? { cookie } : {}), ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
        },
        (res) => {
          for (const line of res.headers['set-cookie'] ?? []) cookie = line.split(';')[0]!;
          let html = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (html += chunk));
          res.on('end', () => resolve({ status: res.statusCode!, html }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  return {
    async typeCode(userCode: string) {
      const entry = await send('GET');
      return send('POST', new URLSearchParams({ ...hiddenFields(entry.html)[0], user_code: userCode }).toString());
    },
  };
}

describe('wrong user codes', () => {
  it('block the address that typed them, and only that one', async () => {
    const codes = await codesFor(server);
    const guesser = browserAt('127.0.0.1');
    expect((await guesser.typeCode('BBBB-BBBB')).status).toBe(400);
    const blocked = await guesser.typeCode('CCCC-CCCC');
    expect(blocked.status).toBe(429);
    expect(blocked.html).toContain('Too many wrong codes were entered from your network. Try again in 10 minutes');
    expect((await guesser.typeCode(codes.user_code)).status).toBe(429);

    const someoneElse = await browserAt('127.0.0.2').typeCode(codes.user_code);
    expect(someoneElse.status).toBe(200);
    expect(someoneElse.html).toContain('<h1>Sign in</h1>');
  });
});
