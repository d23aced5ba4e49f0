/** A `Backoff` over a counter store every node shares; each method is one round trip. */
import { hash } from 'node:crypto';
import type { Backoff } from '../oauth/rate-limits.js';
import type { BackoffRule, CounterStore } from './counter-store.js';

/**
 * `namespace` keeps the throttles apart (each has its own keys and rule). Keys are stored as
 * their SHA-256: a copy of the counters reveals no username, client id or address.
 */
export function sharedBackoff(store: CounterStore, namespace: string, rule: BackoffRule): Backoff {
  const keyOf = (key: string): string => `${namespace}:${hash('sha256', key, 'base64url')}`;
  return {
    check: (keys, now) => store.check(keys.map(keyOf), now),
    async failed(failures, now) {
      await store.count(failures.map((f) => ({ key: keyOf(f.key), threshold: f.threshold })), now, rule);
    },
    attempt: (keys, failures, now) => store.count(failures.map((f) => ({ key: keyOf(f.key), threshold: f.threshold })), now, rule, keys.map(keyOf)),
    reset: (keys) => store.reset(keys.map(keyOf)),
  };
}
