/**
 * SIGTERM, as an operator sends it to `node bin/svc.mjs start` (issue 8, "Faults and shutdown"):
 * the listener closes at once, a request already in flight still gets its whole answer, the
 * process exits 0 within a bounded time, and with the SQLite store nothing issued is lost: an
 * approved device code and refresh tokens (one issued by the in-flight request itself) are
 * redeemed by the next process.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/oauth/password-hash.js';
import { hashSecret } from '../../src/sdk/hash.js';
import { basic, firstPartyPlugins, freePort, postForm } from '../support/server.js';
import { runSvc, until, type SvcProcess } from '../support/svc-process.js';
import { decideOverHttp, deviceGrantType } from '../device/helpers.js';

const alice = { subjectId: 'sub-alice', username: 'alice', password: 'alice-password-3' };
const webSecret = 'web-secret-shutdown';

const running: SvcProcess[] = [];

/** Every process started here is killed after the file, whatever a test left behind. */
function start(configFile: string): SvcProcess {
  const svc = runSvc(configFile);
  running.push(svc);
  return svc;
}

const logged = (svc: SvcProcess, msg: string) => () => svc.logs().some((l) => l.msg === msg);

/** Resolves with the connection error code, or `connected`. */
function tryConnect(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? 'error'));
  });
}

/**
 * A raw HTTP/1.1 exchange whose body the test sends in two halves, when it chooses. It asks for
 * `100 Continue` (as curl does for larger bodies), so the test knows the server has the request
 * before it sends the first half.
 */
function halfSentRequest(port: number, path: string, body: string, headers: Record<string, string>) {
  const socket: Socket = connect(port, '127.0.0.1');
  let received = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (received += chunk));
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const head = [
    `POST ${path} HTTP/1.1`, `Host: 127.0.0.1:${port}`, 'Content-Type: application/x-www-form-urlencoded',
    `Content-Length: ${Buffer.byteLength(body)}`, 'Expect: 100-continue', ...Object.entries(headers).map(([n, v]) => `${n}: ${v}`), '', '',
  ].join('\r\n');
  const interim = 'HTTP/1.1 100 Continue\r\n\r\n';
  const half = Math.floor(body.length / 2);
  /** What came after the interim answer. */
  const final = (): string => (received.startsWith(interim) ? received.slice(interim.length) : '');
  return {
    /** Resolves once the server took the request and the first half of the body is sent. */
    sent: new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.once('connect', () => socket.write(head));
      const check = setInterval(() => {
        if (received.length === 0) return;
        clearInterval(check);
        if (!received.startsWith(interim)) reject(new Error(`expected 100 Continue, got:\n${received}`));
        else socket.write(body.slice(0, half), () => resolve());
      }, 10);
    }),
    answered: () => final().length > 0,
    finish: () => socket.write(body.slice(half)),
    /** The parsed final response, once its whole body has arrived. */
    async response(timeoutMs = 10_000): Promise<{ status: number; headers: Record<string, string>; body: Record<string, unknown> }> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const text = final();
        const end = text.indexOf('\r\n\r\n');
        if (end !== -1) {
          const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
          const headerMap = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
          const content = text.slice(end + 4);
          if (Buffer.byteLength(content) >= Number(headerMap['content-length'])) {
            return { status: Number(statusLine!.split(' ')[1]), headers: headerMap, body: JSON.parse(content) as Record<string, unknown> };
          }
        }
        if (socket.destroyed || Date.now() > deadline) throw new Error(`no complete response${socket.destroyed ? ' before the connection closed' : ' in time'}; got:\n${received}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    closed,
  };
}

let dir: string;
let configFile: string;
let port: number;
let baseUrl: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-shutdown-'));
  port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  configFile = join(dir, 'svc.json');
  writeFileSync(configFile, JSON.stringify({
    port,
    issuer: baseUrl,
    logLevel: 'info',
    store: 'sqlite:./data/svc.db',
    pluginDirs: [firstPartyPlugins],
    apiScopes: [{ name: 'api1.read' }],
    apiResources: [{ name: 'api1', scopes: ['api1.read'] }],
    users: [{ ...alice, password: await hashPassword(alice.password, { ln: 4, r: 8, p: 1 }) }],
    clients: [
      { clientId: 'web', clientSecrets: [{ value: hashSecret(webSecret) }], allowedGrantTypes: ['password', 'refresh_token'], allowedScopes: ['api1.read'], allowOfflineAccess: true },
      { clientId: 'tv', requireClientSecret: false, allowedGrantTypes: [deviceGrantType], allowedScopes: ['api1.read'] },
    ],
  }));
});

afterAll(async () => {
  for (const svc of running) {
    if (svc.proc.exitCode === null && svc.proc.signalCode === null) svc.proc.kill('SIGKILL');
  }
  rmSync(dir, { recursive: true, force: true });
});

const web = { authorization: basic('web', webSecret) };
const passwordGrant = 'grant_type=password&username=alice&password=' + encodeURIComponent(alice.password) + '&scope=' + encodeURIComponent('api1.read offline_access');

describe('svc start, then SIGTERM', () => {
  let deviceCode: string;
  let refreshBefore: string;
  let refreshInFlight: string;

  it('finishes the request in flight, refuses new connections, closes and exits 0 in bounded time', async () => {
    const svc = start(configFile);
    await until('svc listening', svc, logged(svc, 'svc listening'));

    // Grants the next process must honour: an approved device code and a refresh token.
    const codes = (await postForm(`${baseUrl}/connect/deviceauthorization`, { client_id: 'tv', scope: 'api1.read' })).body as {
      device_code: string; verification_uri_complete: string;
    };
    deviceCode = codes.device_code;
    expect((await decideOverHttp(baseUrl, codes.verification_uri_complete, alice, 'approve')).html).toContain('Device connected');
    const issued = await postForm(`${baseUrl}/connect/token`, passwordGrant, web);
    expect(issued.status, JSON.stringify(issued.body)).toBe(200);
    refreshBefore = issued.body.refresh_token as string;

    // A token request whose body is half sent when the signal arrives.
    const inFlight = halfSentRequest(port, '/connect/token', passwordGrant, web);
    await inFlight.sent;
    const signalledAt = Date.now();
    svc.proc.kill('SIGTERM');
    await until('shutting down', svc, logged(svc, 'shutting down'), 5000);
    // The same signal again (as `npm start` forwards a Ctrl-C the terminal already delivered) changes nothing.
    svc.proc.kill('SIGTERM');

    // The listener is closed: a new connection is refused while the old request is still open.
    const deadline = Date.now() + 2000;
    let attempt = await tryConnect(port);
    while (attempt === 'connected' && Date.now() < deadline) attempt = await tryConnect(port);
    expect(attempt).toBe('ECONNREFUSED');
    expect(svc.proc.exitCode).toBeNull();
    expect(inFlight.answered()).toBe(false);

    inFlight.finish();
    const res = await inFlight.response();
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({
      access_token: expect.any(String), token_type: 'Bearer', expires_in: 3600, scope: 'api1.read offline_access', refresh_token: expect.any(String),
    });
    refreshInFlight = res.body.refresh_token as string;
    // Its connection is not kept open for more: the answer says so, and the server closes it.
    expect(res.headers.connection).toBe('close');

    const exit = await svc.exited;
    expect(exit).toMatchObject({ code: 0, signal: null });
    // Well inside the 10 s drain limit (after which the process would exit 1).
    expect(exit.at - signalledAt).toBeLessThan(8000);
    await inFlight.closed;
    const messages = svc.logs().map((l) => l.msg);
    expect(messages).toContain('shutting down');
    expect(messages).not.toContain('requests did not drain in time; exiting');
    expect(messages).not.toContain('shutdown failed');
    expect(svc.logs().filter((l) => (l.level as number) >= 50)).toEqual([]);
  }, 60_000);

  it('loses nothing: after a restart the approved device code and both refresh tokens are redeemed', async () => {
    expect(refreshInFlight).toBeDefined();
    const svc = start(configFile);
    await until('svc listening', svc, logged(svc, 'svc listening'));

    const polled = await postForm(`${baseUrl}/connect/token`, { grant_type: deviceGrantType, client_id: 'tv', device_code: deviceCode });
    expect(polled.status, JSON.stringify(polled.body)).toBe(200);
    expect(polled.body).toMatchObject({ token_type: 'Bearer', scope: 'api1.read' });
    for (const refreshToken of [refreshBefore, refreshInFlight]) {
      const refreshed = await postForm(`${baseUrl}/connect/token`, { grant_type: 'refresh_token', refresh_token: refreshToken }, web);
      expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
      expect(refreshed.body.refresh_token).toEqual(expect.any(String));
    }

    // An idle kept-alive connection does not hold the process up.
    const idle = connect(port, '127.0.0.1');
    await new Promise((resolve) => idle.once('connect', resolve));
    const signalledAt = Date.now();
    svc.proc.kill('SIGTERM');
    const exit = await svc.exited;
    idle.destroy();
    expect(exit).toMatchObject({ code: 0, signal: null });
    expect(exit.at - signalledAt).toBeLessThan(5000);
  }, 60_000);
});
