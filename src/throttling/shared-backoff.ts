/** A `Backoff` and a window limit over a counter store every node shares; each method is one round trip. */
import type { Backoff, WindowCounter, WindowRule } from './rate-limits.js';
import type { BackoffRule, CounterStore } from './counter-store.js';
import type { CounterKeys } from './counter-keys.js';

/**
 * `namespace` keeps the throttles apart (each has its own keys and rule). Keys are stored as
 * their keyed digests (`counter-keys.ts`): a copy of the counters reveals no username, client id
 * or address, not even to a dictionary.
 */
export function sharedBackoff(store: CounterStore, namespace: string, rule: BackoffRule, keys: CounterKeys): Backoff {
  const keyOf = (key: string): string => `${namespace}:${keys(key)}`;
  return {
    check: (keys, now) => store.check(keys.map(keyOf), now),
    async failed(failures, now) {
      await store.count(failures.map((f) => ({ key: keyOf(f.key), threshold: f.threshold })), now, rule);
    },
    attempt: (keys, failures, now) => store.count(failures.map((f) => ({ key: keyOf(f.key), threshold: f.threshold })), now, rule, keys.map(keyOf)),
    reset: (keys) => store.reset(keys.map(keyOf)),
  };
}

/**
 * A fixed window over the shared store: one atomic `windowHit` per event, so N nodes allow the
 * limit once between them, not N times. Events over the limit are counted too (the window's
 * end does not move), which only keeps the key waiting until that end.
 */
export function sharedWindowLimit(store: CounterStore, namespace: string, rule: WindowRule, keys: CounterKeys): WindowCounter {
  const keyOf = (key: string): string => `${namespace}:${keys(key)}`;
  const windowMs = rule.window * 1000;
  return {
    async take(key, now) {
      const { count, endsAt } = await store.windowHit(keyOf(key), now, windowMs);
      return count > rule.limit ? Math.max(1, endsAt - now) : 0;
    },
  };
}
