/** The window counter and the 429 answer, with plain values. The back-off is tested through `auth-throttle.test.ts`. */
import { describe, expect, it } from 'vitest';
import { memoryWindowLimit } from '../../src/throttling/rate-limits.js';
import { tooManyRequests } from '../../src/throttling/too-many-requests.js';

describe('memoryWindowLimit', () => {
  it('allows `limit` events per key per window, then says how long to wait', () => {
    const limit = memoryWindowLimit({ limit: 2, window: 10 });
    expect(limit.take('a', 0)).toBe(0);
    expect(limit.take('a', 1000)).toBe(0);
    expect(limit.take('a', 4000)).toBe(6000);
    expect(limit.take('b', 4000)).toBe(0);
    expect(limit.take('a', 10_000)).toBe(0);
  });

  it('counts only what is hit: waitMs alone does not count', () => {
    const limit = memoryWindowLimit({ limit: 1, window: 10 });
    expect(limit.waitMs('a', 0)).toBe(0);
    expect(limit.waitMs('a', 0)).toBe(0);
    limit.hit('a', 0);
    expect(limit.waitMs('a', 2500)).toBe(7500);
  });
});

describe('tooManyRequests', () => {
  it('is a 429 temporarily_unavailable with Retry-After in whole seconds, at least one', () => {
    const err = tooManyRequests(1200, 'Too many things', 'detail for the log');
    expect(err.status).toBe(429);
    expect(err.headers).toEqual({ 'Retry-After': '2' });
    expect(err.toJSON()).toEqual({ error: 'temporarily_unavailable', error_description: 'Too many things; retry after 2 seconds.' });
    expect(err.logDetail).toBe('detail for the log');
    expect(tooManyRequests(1, 'x', 'y').headers).toEqual({ 'Retry-After': '1' });
  });
});
