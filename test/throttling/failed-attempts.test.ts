import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../../src/store/memory-store.js';
import { createFailedAttempts } from '../../src/throttling/failed-attempts.js';
import { manualClock } from '../device/helpers.js';

function setup() {
  const clock = manualClock(Date.parse('2030-01-01T00:00:00Z'));
  const store = createMemoryStore(clock);
  const limiter = () => createFailedAttempts({ store, clock, maxFailures: 3, windowSeconds: 60 });
  return { clock, store, limiter };
}

describe('failed user code attempts', () => {
  it('block an address at maxFailures until the window that began with its first failure ends', async () => {
    const { clock, limiter } = setup();
    const attempts = limiter();
    const start = clock.now();
    expect(await attempts.recordFailure('10.0.0.1')).toBeUndefined();
    clock.advance(10);
    expect(await attempts.recordFailure('10.0.0.1')).toBeUndefined();
    expect(await attempts.blockedUntil('10.0.0.1')).toBeUndefined();
    expect(await attempts.recordFailure('10.0.0.1')).toBe(start + 60_000);
    expect(await attempts.blockedUntil('10.0.0.1')).toBe(start + 60_000);
    // Other addresses are not affected.
    expect(await attempts.blockedUntil('10.0.0.2')).toBeUndefined();
    clock.advance(50);
    expect(await attempts.blockedUntil('10.0.0.1')).toBeUndefined();
    expect(await attempts.recordFailure('10.0.0.1')).toBeUndefined();
  });

  it('share one count between instances on one store (nodes), even when they race', async () => {
    const { limiter } = setup();
    const nodes = [limiter(), limiter(), limiter()];
    const results = await Promise.all(Array.from({ length: 9 }, (_, i) => nodes[i % 3]!.recordFailure('10.0.0.9')));
    expect(results.filter((r) => r === undefined)).toHaveLength(2);
    expect(await nodes[0]!.blockedUntil('10.0.0.9')).toEqual(expect.any(Number));
  });

  it('store only a count: the address is in the (hashed) key alone', async () => {
    const { store, limiter } = setup();
    await limiter().recordFailure('192.0.2.77');
    const record = await store.get('device_failed_attempts:192.0.2.77');
    expect(record?.data).toBe('{"count":1}');
  });
});
