/**
 * One back-off, three stores: the in-process counters and the shared ones (PostgreSQL, Redis,
 * both real servers) answer the same sequence of failures, checks and resets alike.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryBackoff, type Backoff } from '../../src/throttling/rate-limits.js';
import { sharedBackoff } from '../../src/throttling/shared-backoff.js';
import { counterKeys } from '../../src/throttling/counter-keys.js';
import { openPostgresCounters } from '../../src/throttling/postgres-counters.js';
import { openRedisCounters } from '../../src/throttling/redis-counters.js';
import type { CounterStore } from '../../src/throttling/counter-store.js';
import { createStore } from '../../src/store/create-store.js';
import { createTestSchema, postgresSkipReason, type TestSchema } from '../support/pg.js';
import { redisSkipReason, redisUrl } from '../support/redis.js';

const rule = { maxDelay: 8, window: 60 };
const t0 = Date.parse('2030-01-01T00:00:00Z');
const keys = counterKeys(() => randomBytes(32));

function contract(name: string, make: () => Backoff) {
  describe(name, () => {
    let n = 0;
    const key = (): string => `k${++n}-${randomBytes(4).toString('hex')}`;

    it('blocks from the threshold on, doubling up to maxDelay, and reports a live counter', async () => {
      const b = make();
      const k = key();
      expect(await b.check([k], t0)).toEqual({ waitMs: 0, counted: false });
      await b.failed([{ key: k, threshold: 3 }], t0);
      await b.failed([{ key: k, threshold: 3 }], t0);
      expect(await b.check([k], t0)).toEqual({ waitMs: 0, counted: true });
      const waits: number[] = [];
      for (let i = 0; i < 6; i++) {
        await b.failed([{ key: k, threshold: 3 }], t0);
        waits.push((await b.check([k], t0)).waitMs);
      }
      expect(waits).toEqual([1000, 2000, 4000, 8000, 8000, 8000]);
    });

    it('takes the longest wait over several keys, and forgets a counter after a quiet window', async () => {
      const b = make();
      const [a, c] = [key(), key()];
      await b.failed([{ key: a, threshold: 1 }, { key: c, threshold: 2 }], t0);
      await b.failed([{ key: a, threshold: 1 }, { key: c, threshold: 2 }], t0);
      expect((await b.check([a, c], t0)).waitMs).toBe(2000);
      expect(await b.check([a, c], t0 + 2000 + 60_001)).toEqual({ waitMs: 0, counted: false });
    });

    it('attempt counts only while nothing waits, and answers the wait otherwise', async () => {
      const b = make();
      const [u, other] = [key(), key()];
      expect(await b.attempt([u, other], [{ key: u, threshold: 2 }], t0)).toBe(0);
      expect(await b.attempt([u, other], [{ key: u, threshold: 2 }], t0)).toBe(0);
      expect(await b.attempt([u, other], [{ key: u, threshold: 2 }], t0)).toBe(1000);
      // The refused attempt was not counted: the wait did not grow.
      expect((await b.check([u], t0)).waitMs).toBe(1000);
      await b.reset([u]);
      expect(await b.check([u], t0)).toEqual({ waitMs: 0, counted: false });
    });
  });
}

contract('in memory', () => memoryBackoff(rule));

const pgSkip = await postgresSkipReason('the PostgreSQL counter tests');
describe.skipIf(pgSkip)('PostgreSQL', () => {
  let schema: TestSchema;
  let store: CounterStore;
  beforeAll(async () => {
    schema = await createTestSchema('counters');
    const migrated = await createStore(schema.url, process.cwd());
    await migrated.migrate();
    await migrated.close();
    store = openPostgresCounters(schema.url);
  });
  afterAll(async () => {
    await store?.close();
    await schema?.drop();
  });
  contract('shared back-off', () => sharedBackoff(store, 'test', rule, keys));

  it('sweeps forgotten counters', async () => {
    const b = sharedBackoff(store, 'sweep', rule, keys);
    await b.failed([{ key: 'x', threshold: 5 }], t0);
    await store.sweep!(t0 + 60_001);
    expect(await schema.query("select key from rate_counters where key like 'sweep:%'")).toEqual([]);
  });
});

const redisSkip = await redisSkipReason();
describe.skipIf(redisSkip)('Redis', () => {
  let store: CounterStore;
  beforeAll(async () => {
    store = openRedisCounters(redisUrl, { keyPrefix: `svc-test:${randomBytes(6).toString('hex')}:` });
    await store.ready!();
  });
  afterAll(() => store?.close());
  contract('shared back-off', () => sharedBackoff(store, 'test', rule, keys));
});
