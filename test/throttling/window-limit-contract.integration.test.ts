/**
 * One fixed-window limit, three stores: the in-process counters and the shared ones
 * (PostgreSQL, Redis, both real servers) count, refuse and start a new window alike.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryCounters } from '../../src/throttling/counters.js';
import type { WindowCounter } from '../../src/throttling/rate-limits.js';
import { sharedWindowLimit } from '../../src/throttling/shared-backoff.js';
import { counterKeys } from '../../src/throttling/counter-keys.js';
import { openPostgresCounters } from '../../src/throttling/postgres-counters.js';
import { openRedisCounters } from '../../src/throttling/redis-counters.js';
import type { CounterStore } from '../../src/throttling/counter-store.js';
import { createStore } from '../../src/store/create-store.js';
import { createTestSchema, postgresSkipReason, type TestSchema } from '../support/pg.js';
import { redisSkipReason, redisUrl } from '../support/redis.js';

const rule = { limit: 3, window: 60 };
const t0 = Date.parse('2030-01-01T00:00:00Z');

function contract(make: () => WindowCounter) {
  it('allows the limit per key and window, then answers the wait until the window ends; keys are apart', async () => {
    const w = make();
    const k = `k-${randomBytes(4).toString('hex')}`;
    const waits = [];
    for (let i = 0; i < 5; i++) waits.push(await w.take(k, t0 + i * 1000));
    expect(waits).toEqual([0, 0, 0, 57_000, 56_000]);
    expect(await w.take(`${k}-other`, t0 + 5000)).toBe(0);
    expect(await w.take(k, t0 + 60_000)).toBe(0);
  });
}

describe('in memory', () => contract(() => memoryCounters().windowLimit('test', rule)));

const pgSkip = await postgresSkipReason('the PostgreSQL window tests');
describe.skipIf(pgSkip)('PostgreSQL', () => {
  let schema: TestSchema;
  let store: CounterStore;
  beforeAll(async () => {
    schema = await createTestSchema('windows');
    const migrated = await createStore(schema.url, process.cwd());
    await migrated.migrate();
    await migrated.close();
    store = openPostgresCounters(schema.url);
  });
  afterAll(async () => {
    await store?.close();
    await schema?.drop();
  });
  contract(() => sharedWindowLimit(store, 'test', rule, counterKeys(() => Buffer.from('a root secret of the test'))));
});

const redisSkip = await redisSkipReason();
describe.skipIf(redisSkip)('Redis', () => {
  let store: CounterStore;
  beforeAll(async () => {
    store = openRedisCounters(redisUrl, { keyPrefix: `svc-test:${randomBytes(6).toString('hex')}:` });
    await store.ready!();
  });
  afterAll(() => store?.close());
  contract(() => sharedWindowLimit(store, 'test', rule, counterKeys(() => Buffer.from('a root secret of the test'))));
});
