/**
 * Back-channel logout (OIDC Back-Channel Logout 1.0) against real HTTP servers on loopback
 * standing in for the clients, through the whole path: `notify` queues in the store, the worker
 * claims, signs and posts through the guarded fetch. What each client receives (a logout token
 * it can verify with the service's keys, §2.6), who is not called, how failures are retried with
 * back-off and given up, that a claim another node holds is left alone until its lease runs out,
 * and that the address rules apply. Time is a manual clock: nothing waits for the wall clock.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { decodeProtectedHeader, jwtVerify } from 'jose';
import { resolveConfig } from '../../src/config/resolve.js';
import { createBackChannelLogout, backChannelLogoutEvent } from '../../src/authorize/back-channel-logout.js';
import { createLogoutTokenSender } from '../../src/authorize/logout-token-sender.js';
import { startLogoutDeliveryWorker } from '../../src/authorize/logout-delivery-worker.js';
import { createGuardedFetch } from '../../src/net/guarded-fetch.js';
import { addressMatcher } from '../../src/net/address-ranges.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import type { RaisedEvent, ServiceEvent } from '../../src/events/service-event.js';
import type { EventService } from '../../src/events/event-service.js';
import type { SigningKey } from '../../src/oauth/keys/signing-key.js';
import { tracingOff } from '../../src/tracing/tracing.js';
import { keyRingOf, signingKeys } from '../oauth/signing-keys.js';
import { manualClock } from '../device/helpers.js';

interface Received { path: string; contentType: string | undefined; body: URLSearchParams }
let rp: Server;
let rpUrl: string;
const received: Received[] = [];
let keys: Map<string, SigningKey>;
/** Answers left for `/flaky` before it answers 200. */
let flakyFailures = 0;

const read = async (req: IncomingMessage): Promise<string> => {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  return text;
};

beforeAll(async () => {
  keys = await signingKeys(['RS256', 'ES256']);
  rp = createServer((req, res) => {
    void read(req).then((text) => {
      received.push({ path: req.url!, contentType: req.headers['content-type'], body: new URLSearchParams(text) });
      if (req.url === '/fails') res.writeHead(500).end();
      else if (req.url === '/flaky') res.writeHead(flakyFailures-- > 0 ? 503 : 200).end();
      else if (req.url === '/moves') res.writeHead(302, { location: `${rpUrl}/elsewhere` }).end();
      else if (req.url === '/slow') setTimeout(() => res.writeHead(200).end(), 2000);
      else res.writeHead(req.url === '/no-content' ? 204 : 200).end();
    });
  });
  await new Promise<void>((resolve) => rp.listen(0, '127.0.0.1', resolve));
  rpUrl = `http://127.0.0.1:${(rp.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => rp.close(() => resolve())));
beforeEach(() => {
  received.length = 0;
});

const client = (clientId: string, extra: Record<string, unknown> = {}) => ({
  clientId, clientSecrets: [{ value: 'x' }], allowedGrantTypes: ['authorization_code'], allowedScopes: ['openid'], redirectUris: ['https://rp.example/cb'], ...extra,
});
const config = resolveConfig({
  issuer: 'https://issuer.example',
  identityResources: [{ name: 'openid', claims: ['sub'] }],
  signing: { idTokenAlgorithms: ['RS256', 'ES256'] },
  clients: ['web', 'quiet', 'broken', 'moved', 'slow', 'gone', 'terse', 'flaky'].map((id) => client(id)).concat(client('shop', { allowedIdentityTokenSigningAlgorithms: ['ES256'] })),
}, '/');
const clients = new Map(config.clients.map((c) => [c.clientId, c]));
const session = (sessionClients: string[]) => ({ subject: 'alice-1', sid: 'sid-42', clients: sessionClients });

function logoutWith(uris: Record<string, string>, options: { timeoutMs?: number; maxAttempts?: number; allowed?: string[] } = {}) {
  const lines: Array<Record<string, unknown>> = [];
  const events: RaisedEvent[] = [];
  const logger = { debug() {}, info: (obj: object, msg?: string) => void lines.push({ ...obj, msg }), warn: (obj: object, msg?: string) => void lines.push({ ...obj, msg }), error() {}, child: () => logger };
  const clock = manualClock(Date.parse('2030-01-01T00:00:00Z'));
  const store = createMemoryStore(clock);
  const timeoutMs = options.timeoutMs ?? 5000;
  const eventService = { raise: (event: ServiceEvent, requestId?: string) => void events.push({ ...event, time: '', ...(requestId ? { requestId } : {}) }) } as unknown as EventService;
  const worker = startLogoutDeliveryWorker({
    deliveries: store.logoutDeliveries, clock, logger, events: eventService,
    send: createLogoutTokenSender({
      issuer: config.issuer, clients, logoutUriOf: (c) => uris[c.clientId], keyRing: keyRingOf(keys), clock, tracing: tracingOff, timeoutMs,
      fetch: createGuardedFetch({ maxBytes: 65_536, timeoutMs, allowedAddresses: addressMatcher(options.allowed ?? ['127.0.0.1']), accept: '*/*', allowHttp: true, okStatuses: [200, 204] }),
    }),
    // Polls never come in these tests: each look is `runNow`, after the clock moved.
    settings: { pollIntervalMs: 3_600_000, maxAttempts: options.maxAttempts ?? 5, retryDelayMs: 40_000, leaseMs: timeoutMs + 30_000 },
  });
  const logout = createBackChannelLogout({ clients, logoutUriOf: (c) => uris[c.clientId], deliveries: store.logoutDeliveries, clock, logger });
  const outcomes = () => events.map((e) => (e.type === 'logout.notified' ? `${e.clientId} #${e.attempt} ${e.reason ?? 'delivered'}` : e.type === 'logout.failed' ? `${e.clientId} gave up after ${e.attempts}: ${e.reason}` : e.type));
  return { logout, worker, store, clock, lines, events, outcomes };
}

describe('back-channel logout', () => {
  it('posts each client of the session a logout token it can verify with the service key, signed as its ID tokens', async () => {
    const { logout, worker, events, store } = logoutWith({ web: `${rpUrl}/web/logout`, shop: `${rpUrl}/shop/logout` });
    expect(await logout.notify(session(['web', 'shop', 'quiet']), 'req-1')).toBe(2);
    // Queued, not yet posted: the browser's answer waits for nothing more.
    expect(received).toEqual([]);
    expect(await store.logoutDeliveries.count()).toBe(2);
    await worker.runNow();
    expect(received.map((r) => r.path).sort()).toEqual(['/shop/logout', '/web/logout']);
    const tokens = new Map(received.map((r) => [r.path, r.body.get('logout_token')!]));
    for (const [path, alg, aud] of [['/web/logout', 'RS256', 'web'], ['/shop/logout', 'ES256', 'shop']] as const) {
      const token = tokens.get(path)!;
      expect(received.find((r) => r.path === path)!.contentType).toBe('application/x-www-form-urlencoded');
      expect(decodeProtectedHeader(token)).toMatchObject({ alg, typ: 'logout+jwt' });
      // §2.6 as a client checks it: signature, iss, aud, iat, typ, the event, sub or sid, and no nonce.
      const { payload } = await jwtVerify(token, keys.get(alg)!.publicKey, { issuer: 'https://issuer.example', audience: aud, typ: 'logout+jwt', currentDate: new Date('2030-01-01T00:00:30Z') });
      expect(payload).toMatchObject({ sub: 'alice-1', sid: 'sid-42', events: { [backChannelLogoutEvent]: {} } });
      expect(payload).not.toHaveProperty('nonce');
      expect(payload.exp! - payload.iat!).toBe(120);
      expect(payload.jti).toMatch(/^[\w-]{36}$/);
    }
    expect(tokens.get('/web/logout')).not.toBe(tokens.get('/shop/logout'));
    // Each event carries the id of the request that ended the session.
    expect(events.map((e) => e.type === 'logout.notified' && [e.clientId, e.delivered, e.attempt, e.requestId]).sort()).toEqual([['shop', true, 1, 'req-1'], ['web', true, 1, 'req-1']]);
    // Delivered means done: nothing is left to claim.
    expect(await store.logoutDeliveries.count()).toBe(0);
    await worker.stop();
  });

  it('queues nothing for a client without a back-channel URI or a client that is gone', async () => {
    const { logout, worker, events, store } = logoutWith({ web: `${rpUrl}/web/logout` });
    expect(await logout.notify(session(['quiet', 'no-such-client']))).toBe(0);
    await worker.runNow();
    expect(received).toEqual([]);
    expect(events).toEqual([]);
    expect(await store.logoutDeliveries.count()).toBe(0);
    await worker.stop();
  });

  it('reports a client that fails, redirects, is down or too slow, with the reason and never the token', async () => {
    const down = `http://127.0.0.1:${await closedPort()}/logout`;
    const { logout, worker, lines, events, outcomes } = logoutWith({
      broken: `${rpUrl}/fails`, moved: `${rpUrl}/moves`, gone: down, slow: `${rpUrl}/slow`, terse: `${rpUrl}/no-content`,
    }, { timeoutMs: 500, maxAttempts: 1 });
    await logout.notify(session(['broken', 'moved', 'gone', 'slow', 'terse']));
    await worker.runNow();
    expect(outcomes().sort()).toEqual([
      'broken #1 answered 500', 'broken gave up after 1: answered 500',
      'gone #1 not reachable', 'gone gave up after 1: not reachable',
      'moved #1 answered 302', 'moved gave up after 1: answered 302',
      'slow #1 no answer within 500 ms', 'slow gave up after 1: no answer within 500 ms',
      'terse #1 delivered',
    ]);
    // The redirect was not followed.
    expect(received.map((r) => r.path)).not.toContain('/elsewhere');
    const sent = received.map((r) => r.body.get('logout_token')!);
    expect(sent.length).toBeGreaterThan(0);
    for (const token of sent) {
      expect(JSON.stringify(lines)).not.toContain(token.split('.')[2]);
      expect(JSON.stringify(events)).not.toContain(token.split('.')[2]);
    }
    await worker.stop();
  });

  it('tries a client that is down again after 40 s, then 80 s, and delivers once it answers', async () => {
    flakyFailures = 2;
    const { logout, worker, clock, outcomes, store } = logoutWith({ flaky: `${rpUrl}/flaky` });
    await logout.notify(session(['flaky']));
    await worker.runNow();
    expect(outcomes()).toEqual(['flaky #1 answered 503']);
    clock.advance(39);
    await worker.runNow();
    expect(received).toHaveLength(1);
    clock.advance(1);
    await worker.runNow();
    expect(outcomes()).toEqual(['flaky #1 answered 503', 'flaky #2 answered 503']);
    // Twice the delay after the second failure.
    clock.advance(79);
    await worker.runNow();
    expect(received).toHaveLength(2);
    clock.advance(1);
    await worker.runNow();
    expect(outcomes()).toEqual(['flaky #1 answered 503', 'flaky #2 answered 503', 'flaky #3 delivered']);
    expect(await store.logoutDeliveries.count()).toBe(0);
    await worker.stop();
  });

  it('gives up after the last attempt with a logout.failed event', async () => {
    const { logout, worker, clock, outcomes, store } = logoutWith({ broken: `${rpUrl}/fails` }, { maxAttempts: 3 });
    await logout.notify(session(['broken']));
    for (const wait of [0, 40, 80, 160]) {
      clock.advance(wait);
      await worker.runNow();
    }
    expect(outcomes()).toEqual(['broken #1 answered 500', 'broken #2 answered 500', 'broken #3 answered 500', 'broken gave up after 3: answered 500']);
    expect(received).toHaveLength(3);
    expect(await store.logoutDeliveries.count()).toBe(0);
    await worker.stop();
  });

  it('leaves a delivery another node claimed until its lease runs out, then delivers it', async () => {
    const { logout, worker, clock, outcomes, store } = logoutWith({ web: `${rpUrl}/web/logout` });
    await logout.notify(session(['web']));
    // A node that claimed it and died before posting.
    const [dead] = await store.logoutDeliveries.claim(clock.now(), 35_000, 10);
    await worker.runNow();
    expect(received).toEqual([]);
    clock.advance(35);
    await worker.runNow();
    expect(outcomes()).toEqual(['web #2 delivered']);
    expect(await store.logoutDeliveries.finish(dead!.id, dead!.claim)).toBe(false);
    await worker.stop();
  });

  it('refuses a loopback or private address the deployment did not allow, without posting', async () => {
    const { logout, worker, outcomes } = logoutWith({ web: `${rpUrl}/web/logout`, shop: 'http://10.0.0.7/logout' }, { allowed: [] });
    await logout.notify(session(['web', 'shop']));
    await worker.runNow();
    expect(received).toEqual([]);
    const refused = 'its address may not be posted to (backchannelLogout.allowedAddresses)';
    expect(outcomes().sort()).toEqual([`shop #1 ${refused}`, `shop gave up after 1: ${refused}`, `web #1 ${refused}`, `web gave up after 1: ${refused}`]);
    await worker.stop();
  });
});

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
