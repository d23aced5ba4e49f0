import { afterEach, describe, expect, it, vi } from 'vitest';
import { startExpiredGrantSweeper } from '../../src/store/expired-grant-sweeper.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import type { Store } from '../../src/store/store.js';
import { manualClock } from '../device/helpers.js';

function storeRemoving(batches: number[]): Store & { calls: [number, number][] } {
  const calls: [number, number][] = [];
  return {
    calls,
    removeExpired: async (now: number, batchSize: number) => {
      calls.push([now, batchSize]);
      const next = batches.shift();
      if (next === undefined) throw new Error('database down');
      return next;
    },
  } as unknown as Store & { calls: [number, number][] };
}

describe('startExpiredGrantSweeper', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('waits one interval, then deletes in batches until a batch comes back short', async () => {
    vi.useFakeTimers();
    const store = storeRemoving([3, 3, 1, 0]);
    const sweeper = startExpiredGrantSweeper({ store, intervalSeconds: 60, batchSize: 3, clock: { now: () => 42 }, onError: vi.fn() });

    await vi.advanceTimersByTimeAsync(59_999);
    expect(store.calls).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(store.calls).toEqual([[42, 3], [42, 3], [42, 3]]);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(store.calls).toHaveLength(4);
    sweeper.stop();
  });

  it('reports failures through onError and keeps its schedule', async () => {
    vi.useFakeTimers();
    const store = storeRemoving([]);
    const onError = vi.fn(() => {
      throw new Error('a broken reporter');
    });
    const sweeper = startExpiredGrantSweeper({ store, intervalSeconds: 1, clock: { now: () => 0 }, onError });

    await vi.advanceTimersByTimeAsync(3000);

    expect(onError).toHaveBeenCalledTimes(3);
    expect(onError.mock.calls[0]).toEqual([new Error('database down')]);
    expect(store.calls[0]).toEqual([0, 500]);
    sweeper.stop();
  });

  it('stops sweeping after stop()', async () => {
    vi.useFakeTimers();
    const store = storeRemoving([0, 0, 0]);
    const sweeper = startExpiredGrantSweeper({ store, intervalSeconds: 1, clock: { now: () => 0 }, onError: vi.fn() });

    await vi.advanceTimersByTimeAsync(1000);
    sweeper.stop();
    await vi.advanceTimersByTimeAsync(5000);

    expect(store.calls).toHaveLength(1);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('does not keep the process alive', () => {
    const unref = vi.spyOn(globalThis, 'setTimeout');
    const sweeper = startExpiredGrantSweeper({ store: storeRemoving([]), intervalSeconds: 1, clock: { now: () => 0 }, onError: vi.fn() });
    const timer = unref.mock.results[0]!.value as NodeJS.Timeout;

    expect(timer.hasRef()).toBe(false);
    sweeper.stop();
    unref.mockRestore();
  });
});

describe('sweeping a store other nodes share', () => {
  const expiredGrant = (key: string) => ({
    key, type: 'reference_token', clientId: 'app', subjectId: undefined, sessionId: undefined,
    createdAt: 0, expiresAt: 500, consumedAt: undefined, data: '{}',
  });

  it('lets one node delete per interval while the others only count', async () => {
    const store = createMemoryStore({ now: () => 1000 });
    await store.add(expiredGrant('a'));
    await store.add(expiredGrant('b'));
    const clock = manualClock(1000);
    const nodes = [1, 2].map(() => startExpiredGrantSweeper({ store, intervalSeconds: 60, clock, onError: vi.fn(), shared: true, onSweep: () => {} }));

    const first = await nodes[0]!.sweepNow();
    const second = await nodes[1]!.sweepNow();
    expect(first).toEqual({ expired: { reference_token: 2 }, removed: 2, batches: 1 });
    expect(second).toEqual({ expired: {}, removed: 0, batches: 0 });

    await store.add({ ...expiredGrant('c'), expiresAt: 2000 });
    clock.advance(60);
    expect(await nodes[1]!.sweepNow()).toEqual({ expired: { reference_token: 1 }, removed: 1, batches: 1 });
    nodes.forEach((node) => node.stop());
  });

  it('still deletes when counting the backlog fails, and reports the failure', async () => {
    const store = createMemoryStore({ now: () => 1000 });
    await store.add(expiredGrant('a'));
    const failing = Object.assign(Object.create(store) as Store, { countExpired: async () => { throw new Error('statement timeout'); } });
    const onError = vi.fn();
    const onSweep = vi.fn();
    const sweeper = startExpiredGrantSweeper({ store: failing, intervalSeconds: 60, clock: manualClock(1000), onError, onSweep });

    expect(await sweeper.sweepNow()).toEqual({ expired: undefined, removed: 1, batches: 1 });
    expect(onError).toHaveBeenCalledWith(new Error('statement timeout'));
    expect(onSweep).toHaveBeenCalledWith({ expired: undefined, removed: 1, batches: 1 });
    sweeper.stop();
  });
});
