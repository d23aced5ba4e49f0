/**
 * The guessing counters shared by every node (`counters: "store"` on PostgreSQL, or Redis):
 * failures on node A block on node B, for the client throttle, the per-user password limit and
 * the device page's wrong codes; a counter store that goes away fails closed (503, one log line
 * per outage) and the service recovers by itself when it comes back. Real PostgreSQL and Redis;
 * the outage is a TCP proxy between the service and the server, cut and resumed.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserConfig } from '../../src/config/schema.js';
import { alice, auth, baseConfig } from '../fixtures/grant-plugins/world.js';
import { postFrom, type Reply } from '../support/raw-http.js';
import { startServer, type TestServer } from '../support/server.js';
import { createTestSchema, postgresSkipReason, postgresUrl, type TestSchema } from '../support/pg.js';
import { redisSkipReason, redisUrl } from '../support/redis.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';
import { PageClient } from '../device/helpers.js';

const attacker = '127.0.0.3';
const realClient = '127.0.0.2';
const limits: UserConfig = {
  authThrottle: { pairThreshold: 3, addressThreshold: 1000, maxDelay: 300, window: 900 },
  passwordThrottle: { pairThreshold: 1000, userThreshold: 3, addressThreshold: 1000, maxDelay: 300, window: 900 },
  deviceFlow: { maxFailedAttempts: 3, failedAttemptsWindow: 600 },
};

const token = (node: TestServer, from: string, form: Record<string, string>, headers: Record<string, string>): Promise<Reply> =>
  postFrom(`${node.url}/connect/token`, from, form, headers);
const clientCredentials = (node: TestServer, from: string, secret?: string) =>
  token(node, from, { grant_type: 'client_credentials', scope: 'api1.read' }, secret === undefined ? auth('m2m') : { authorization: `Basic ${Buffer.from(`m2m:${secret}`).toString('base64')}` });
const signIn = (node: TestServer, from: string, password: string) =>
  token(node, from, { grant_type: 'password', username: 'alice', password, scope: 'api1.read' }, auth('web'));

async function typeWrongCode(node: TestServer, code: string) {
  const page = new PageClient(node.url);
  return page.submit(await page.get('/device'), { user_code: code });
}

const unavailable = { error: 'temporarily_unavailable', error_description: 'The service is temporarily unavailable; try again later.' };

/** The cases every shared counter store must pass, on two nodes built by `start`. */
function sharedByTwoNodes(start: () => Promise<UserConfig>) {
  let nodeA: TestServer;
  let nodeB: TestServer;
  beforeAll(async () => {
    const config = await start();
    nodeA = await startServer(config);
    nodeB = await startServer(config);
  });
  afterAll(async () => {
    await nodeA?.close();
    await nodeB?.close();
  });

  it('client authentication: failures on node A block the same client and address on node B, and only there', async () => {
    for (let i = 0; i < 3; i++) expect((await clientCredentials(nodeA, attacker, 'guess')).status).toBe(401);
    const blocked = await clientCredentials(nodeB, attacker, 'guess');
    expect(blocked.status).toBe(429);
    expect(blocked.body.error).toBe('temporarily_unavailable');
    expect((await clientCredentials(nodeB, realClient)).status).toBe(200);
  });

  it("password grant: a user's failures spread over both nodes add up to the per-user limit", async () => {
    expect((await signIn(nodeA, attacker, 'guess-1')).status).toBe(400);
    expect((await signIn(nodeB, realClient, 'guess-2')).status).toBe(400);
    expect((await signIn(nodeA, '127.0.0.4', 'guess-3')).status).toBe(400);
    const blocked = await signIn(nodeB, '127.0.0.5', alice.password);
    expect(blocked.status).toBe(429);
    expect(blocked.body).toEqual({ error: 'temporarily_unavailable', error_description: 'Too many failed sign-ins; retry after 1 seconds.' });
  });

  it("device page: wrong codes typed on both nodes add up, and the block holds on either", async () => {
    expect((await typeWrongCode(nodeA, 'BBBB-BBBB')).status).toBe(400);
    expect((await typeWrongCode(nodeB, 'CCCC-CCCC')).status).toBe(400);
    const third = await typeWrongCode(nodeA, 'DDDD-DDDD');
    expect(third.status).toBe(429);
    expect(third.html).toContain('Too many wrong codes were entered from your network.');
    expect((await typeWrongCode(nodeB, 'FFFF-FFFF')).status).toBe(429);
  });
}

/** Cut the line to the counter store: callers it would count get 503, never a pass; back by itself. */
function outage(start: () => Promise<{ config: UserConfig; proxy: TcpProxy }>) {
  let node: TestServer;
  let proxy: TcpProxy;
  beforeAll(async () => {
    const started = await start();
    proxy = started.proxy;
    node = await startServer(started.config);
  });
  afterAll(async () => {
    await node?.close();
    await proxy?.close();
  });

  const outageLines = () => node.logs.filter((l) => String(l.msg).startsWith('counter store unreachable'));
  const recoveryLines = () => node.logs.filter((l) => l.msg === 'counter store reachable again');

  it('fails closed for the callers it would count while the store is away, logs it once, and recovers by itself', async () => {
    expect((await clientCredentials(node, realClient)).status).toBe(200);
    proxy.cut();

    const right = await clientCredentials(node, realClient);
    expect(right.status).toBe(503);
    expect(right.headers['retry-after']).toBe('5');
    expect(right.body).toEqual(unavailable);
    // A wrong secret is not let through to a 401 uncounted either.
    expect(await clientCredentials(node, attacker, 'guess')).toMatchObject({ status: 503, body: unavailable });
    expect(await signIn(node, attacker, 'guess')).toMatchObject({ status: 503, body: unavailable });
    expect(outageLines()).toHaveLength(1);
    expect(String(outageLines()[0]!.detail)).not.toContain('guess');
    // The service itself is up: health needs no counter.
    expect((await fetch(`${node.url}/healthz`)).status).toBe(200);

    proxy.resume();
    let status = 0;
    for (let i = 0; i < 100 && status !== 200; i++) {
      status = (await clientCredentials(node, realClient)).status;
      if (status !== 200) await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toBe(200);
    expect(recoveryLines()).toHaveLength(1);
    expect(outageLines()).toHaveLength(1);
  });
}

const prefix = (): string => `svc-test:${randomBytes(6).toString('hex')}:`;

const pgSkip = await postgresSkipReason('the shared-counter PostgreSQL tests');
describe.skipIf(pgSkip)('counters in PostgreSQL (counters: "store")', () => {
  const schemas: TestSchema[] = [];
  afterAll(async () => {
    for (const s of schemas) await s.drop();
  });

  describe('two nodes', () => {
    sharedByTwoNodes(async () => {
      const schema = await createTestSchema('counters_nodes');
      schemas.push(schema);
      return { ...baseConfig, ...limits, store: schema.url, counters: 'store' };
    });
  });

  describe('the database going away and coming back', () => {
    outage(async () => {
      const schema = await createTestSchema('counters_outage');
      schemas.push(schema);
      const target = new URL(postgresUrl);
      const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
      return { config: { ...baseConfig, ...limits, store: schema.urlVia(proxy.host, proxy.port), counters: 'store' }, proxy };
    });
  });
});

const redisSkip = await redisSkipReason('the shared-counter Redis tests');
describe.skipIf(redisSkip)('counters in Redis', () => {
  describe('two nodes, each with its own store', () => {
    sharedByTwoNodes(async () => ({ ...baseConfig, ...limits, store: 'memory', counters: redisUrl, counterKeyPrefix: prefix() }));
  });

  describe('Redis going away and coming back', () => {
    outage(async () => {
      const target = new URL(redisUrl);
      const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 6379) });
      return { config: { ...baseConfig, ...limits, store: 'memory', counters: `redis://${proxy.host}:${proxy.port}`, counterKeyPrefix: prefix() }, proxy };
    });
  });
});
