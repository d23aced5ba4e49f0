import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../../src/store/memory-store.js';
import { loadCookieSecret } from '../../src/pages/cookie-secret.js';
import { manualClock } from '../device/helpers.js';

describe('the cookie secret', () => {
  it('is the configured one when set', async () => {
    const clock = manualClock();
    const secret = await loadCookieSecret({ configured: 'x'.repeat(32), store: createMemoryStore(clock), clock });
    expect(secret.toString()).toBe('x'.repeat(32));
  });

  it('is otherwise created once in the store: every node loading it, even at once, gets the same', async () => {
    const clock = manualClock();
    const store = createMemoryStore(clock);
    const loaded = await Promise.all(Array.from({ length: 5 }, () => loadCookieSecret({ configured: undefined, store, clock })));
    expect(loaded[0]!.length).toBe(32);
    for (const s of loaded) expect(s.equals(loaded[0]!)).toBe(true);
    clock.advance(365 * 86_400);
    expect((await loadCookieSecret({ configured: undefined, store, clock })).equals(loaded[0]!)).toBe(true);
  });

  it('differs between stores', async () => {
    const clock = manualClock();
    const a = await loadCookieSecret({ configured: undefined, store: createMemoryStore(clock), clock });
    const b = await loadCookieSecret({ configured: undefined, store: createMemoryStore(clock), clock });
    expect(a.equals(b)).toBe(false);
  });
});
