/**
 * What the shared counter store learns of a username or address (issue 33, item 11): a keyed
 * digest under the root secret, not its SHA-256, which a dictionary would reverse. Nodes with
 * the same secret (the same store) count as one; another secret gives other keys. On the real
 * Redis, through the counters `createCounters` makes for `counters: "redis://..."`.
 */
import { hash, randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { createCounters, type Counters } from '../../src/throttling/counters.js';
import type { Logger } from '../../src/sdk/contracts.js';
import { checkConfig } from '../../src/config/load.js';
import { redisSkipReason, redisUrl } from '../support/redis.js';

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {}, child: () => silent };
const t0 = Date.parse('2030-01-01T00:00:00Z');
const rule = { maxDelay: 8, window: 60 };
const opened: Counters[] = [];

afterEach(async () => {
  for (const c of opened.splice(0)) await c.close();
});

/** A node's counters on the shared Redis, with every key it hands Redis recorded. */
async function node(prefix: string, rootSecret: Buffer, store = 'postgres://db.internal/svc', logger = silent): Promise<{ counters: Counters; sent: () => Promise<string[]> }> {
  const counters = createCounters(
    { counters: redisUrl, counterKeyPrefix: prefix, store, cleanupInterval: 3600, deviceFlow: checkConfig({}, process.cwd()).deviceFlow },
    { logger, clock: { now: () => t0 }, rootSecret: () => rootSecret },
  );
  opened.push(counters);
  await counters.ready();
  const sent = async (): Promise<string[]> => {
    const client = new Redis(redisUrl);
    try {
      return (await client.keys(`${prefix}*`)).map((k) => k.slice(prefix.length));
    } finally {
      client.disconnect();
    }
  };
  return { counters, sent };
}

const redisSkip = await redisSkipReason('the counter key tests');
describe.skipIf(redisSkip)('shared counter keys', () => {
  it('are keyed digests: not the SHA-256 of the username, and other under another secret', async () => {
    const prefix = `svc-test:${randomBytes(6).toString('hex')}:`;
    const a = await node(prefix, randomBytes(32));
    await a.counters.backoff('password', rule).failed([{ key: 'alice', threshold: 1 }], t0);
    const keysA = await a.sent();
    expect(keysA.length).toBeGreaterThan(0);
    const sha = hash('sha256', 'alice', 'base64url');
    for (const k of keysA) {
      expect(k).not.toContain(sha);
      expect(k).not.toContain('alice');
    }

    const otherPrefix = `svc-test:${randomBytes(6).toString('hex')}:`;
    const b = await node(otherPrefix, randomBytes(32));
    await b.counters.backoff('password', rule).failed([{ key: 'alice', threshold: 1 }], t0);
    const keysB = await b.sent();
    expect(keysB.length).toBe(keysA.length);
    for (const k of keysB) expect(keysA).not.toContain(k);
  });

  it('two nodes with the same secret count as one; a node with another secret does not see their counts', async () => {
    const prefix = `svc-test:${randomBytes(6).toString('hex')}:`;
    const secret = randomBytes(32);
    const [one, two, stranger] = await Promise.all([node(prefix, secret), node(prefix, Buffer.from(secret)), node(prefix, randomBytes(32))]);
    const failure = [{ key: 'alice', threshold: 2 }];
    await one.counters.backoff('password', rule).failed(failure, t0);
    await two.counters.backoff('password', rule).failed(failure, t0);
    await one.counters.backoff('password', rule).failed(failure, t0);
    expect((await two.counters.backoff('password', rule).check(['alice'], t0)).waitMs).toBe(2000);
    expect(await stranger.counters.backoff('password', rule).check(['alice'], t0)).toEqual({ waitMs: 0, counted: false });

    const device = { clock: { now: () => t0 }, maxFailures: 2, windowSeconds: 60 };
    await one.counters.deviceFailedAttempts(device)!.recordFailure('203.0.113.7');
    expect(await two.counters.deviceFailedAttempts(device)!.recordFailure('203.0.113.7')).toBe(t0 + 60_000);
    expect(await stranger.counters.deviceFailedAttempts(device)!.blockedUntil('203.0.113.7')).toBeUndefined();
  });

  it('nodes that each keep an in-memory store share no secret: plain digests, so they still count as one, and a warning says what to set', async () => {
    const prefix = `svc-test:${randomBytes(6).toString('hex')}:`;
    const warned: string[] = [];
    const logger: Logger = { ...silent, warn: (_fields: unknown, msg?: string) => void warned.push(String(msg)) };
    const [one, two] = await Promise.all([node(prefix, randomBytes(32), 'memory', logger), node(prefix, randomBytes(32), 'memory', logger)]);
    await one.counters.backoff('password', rule).failed([{ key: 'alice', threshold: 1 }], t0);
    expect((await two.counters.backoff('password', rule).check(['alice'], t0)).waitMs).toBe(1000);
    expect(await one.sent()).toEqual([`password:${hash('sha256', 'alice', 'base64url')}`]);
    expect(warned.filter((m) => m.includes('set deviceFlow.cookieSecret'))).toHaveLength(2);
  });
});
