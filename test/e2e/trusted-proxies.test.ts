/**
 * The client's address behind a real reverse proxy (Debian's nginx, started by the test), and
 * forwarding headers from anyone else ignored. Clients bind their own loopback address
 * (127.0.0.2 the real client, 127.0.0.3 the attacker; Linux routes all of 127.0.0.0/8 to lo);
 * nginx reaches the service from 127.0.0.1, the only trusted proxy.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserConfig } from '../../src/config/schema.js';
import { demoConfig } from '../support/demo-config.js';
import { basic, startServer, type TestServer } from '../support/server.js';
import { nginxSkipReason, startNginx, type Nginx } from '../support/nginx.js';

const realClient = '127.0.0.2';
const attacker = '127.0.0.3';
const pairThreshold = 3;

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

function send(url: string, opts: { from: string; method?: string; headers?: Record<string, string>; body?: string }): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: opts.method ?? 'GET', localAddress: opts.from, agent: false, headers: opts.headers ?? {} }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

const ccBody = new URLSearchParams({ grant_type: 'client_credentials' }).toString();
function token(base: string, from: string, secret: string, headers: Record<string, string> = {}): Promise<Reply> {
  return send(`${base}/connect/token`, {
    from, method: 'POST', body: ccBody,
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic('m2m', secret), ...headers },
  });
}
const errorOf = (r: Reply): unknown => (JSON.parse(r.text) as { error?: unknown }).error;

/** The attacker fails as m2m until blocked; the real m2m then still gets its token. */
async function expectNoLockout(base: string, spoofed: Record<string, string> = {}): Promise<void> {
  for (let i = 0; i < pairThreshold; i++) expect((await token(base, attacker, 'guess', spoofed)).status).toBe(401);
  const blocked = await token(base, attacker, 'guess', spoofed);
  expect(blocked.status).toBe(429);
  expect(errorOf(blocked)).toBe('temporarily_unavailable');
  const real = await token(base, realClient, 'm2m-secret');
  expect(real.status, real.text).toBe(200);
}

function sessionCookie(reply: Reply): string {
  const cookies = ([] as string[]).concat(reply.headers['set-cookie'] ?? []);
  const cookie = cookies.find((c) => c.startsWith('svc_session='));
  expect(cookie, 'the device page sets its session cookie').toBeDefined();
  return cookie!;
}

const config = (extra: Partial<UserConfig>): UserConfig => ({
  ...demoConfig,
  authThrottle: { pairThreshold, addressThreshold: 1000, maxDelay: 300, window: 900 },
  trustedProxies: ['127.0.0.1'],
  ...extra,
});

const skip = nginxSkipReason();

describe.skipIf(skip)('behind nginx sending X-Forwarded-For', () => {
  let server: TestServer;
  let nginx: Nginx;
  beforeAll(async () => {
    server = await startServer(config({}));
    nginx = await startNginx(server.url, {
      'X-Forwarded-For': '$proxy_add_x_forwarded_for',
      'X-Forwarded-Proto': 'https',
    });
  });
  afterAll(async () => {
    await nginx?.close();
    await server?.close();
  });

  it('counts failures per real client address: an attacker failing with a client id does not lock the client out', async () => {
    await expectNoLockout(nginx.url);
    const throttled = server.logs.filter((l) => l.msg === 'request rejected' && l.status === 429);
    expect(throttled.map((l) => l.address)).toEqual([attacker]);
  });

  it("takes the right-most address that is not a trusted proxy: a client's own X-Forwarded-For does not move its failures elsewhere", async () => {
    // nginx appends the attacker's real address after the forged ones.
    const forged = { 'X-Forwarded-For': `${realClient}, 10.9.8.7` };
    const blocked = await token(nginx.url, attacker, 'guess', forged);
    expect(blocked.status).toBe(429);
    expect((await token(nginx.url, realClient, 'm2m-secret')).status).toBe(200);
  });

  it('marks the device page cookie Secure when the proxy says the browser came over https', async () => {
    expect(sessionCookie(await send(`${nginx.url}/device`, { from: realClient }))).toMatch(/; Secure$/);
  });
});

describe.skipIf(skip)('behind nginx sending Forwarded (RFC 7239)', () => {
  let server: TestServer;
  let nginx: Nginx;
  beforeAll(async () => {
    server = await startServer(config({ forwardedHeader: 'forwarded' }));
    nginx = await startNginx(server.url, { Forwarded: '"for=$remote_addr;proto=$scheme"', 'X-Forwarded-For': '1.2.3.4' });
  });
  afterAll(async () => {
    await nginx?.close();
    await server?.close();
  });

  it('counts failures per real client address from the Forwarded header, and ignores X-Forwarded-For', async () => {
    await expectNoLockout(nginx.url);
  });

  it('does not mark the cookie Secure when the proxy says the browser came over http', async () => {
    expect(sessionCookie(await send(`${nginx.url}/device`, { from: realClient }))).not.toMatch(/Secure/);
  });
});

describe('forwarding headers from an address that is not a trusted proxy', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer(config({ trustedProxies: ['10.0.0.0/8', 'fd00::/8'], issuer: undefined }));
  });
  afterAll(() => server?.close());

  it('are ignored: forged X-Forwarded-For and Forwarded neither spread the attacker over many addresses nor block the client named in them', async () => {
    let n = 0;
    const rotating = (): Record<string, string> => ({
      'X-Forwarded-For': `198.51.100.${++n}`,
      Forwarded: `for=198.51.100.${n}`,
    });
    for (let i = 0; i < pairThreshold; i++) expect((await token(server.url, attacker, 'guess', rotating())).status).toBe(401);
    expect((await token(server.url, attacker, 'guess', rotating())).status).toBe(429);
    // Failures sent "for" the real client's address from the attacker's socket count against the attacker.
    const framed = { 'X-Forwarded-For': realClient, Forwarded: `for=${realClient}` };
    expect((await token(server.url, attacker, 'guess', framed)).status).toBe(429);
    expect((await token(server.url, realClient, 'm2m-secret')).status).toBe(200);
  });

  it('are ignored for the scheme: X-Forwarded-Proto: https does not make the cookie Secure', async () => {
    const reply = await send(`${server.url}/device`, { from: realClient, headers: { 'X-Forwarded-Proto': 'https', Forwarded: 'proto=https' } });
    expect(sessionCookie(reply)).not.toMatch(/Secure/);
  });
});
