/**
 * Where the guessing counters live, as `counters` in the config says: in this process (the
 * default, for a single node), in the PostgreSQL store's database (`"store"`) or in Redis
 * (`"redis://..."`). Shared counters make N nodes count as one: a block on one node holds on
 * every other, and N nodes do not give an attacker N times the attempts. A shared store that
 * cannot be reached fails closed for the callers it would count (see `fail-closed.ts`).
 */
import type { ResolvedConfig } from '../config/schema.js';
import type { Clock, Logger } from '../sdk/contracts.js';
import type { FailedAttempts } from './failed-attempts.js';
import { memoryBackoff, memoryWindowLimit, type Backoff, type WindowCounter, type WindowRule } from './rate-limits.js';
import type { BackoffRule, CounterStore } from './counter-store.js';
import { counterKeys, type CounterKeys } from './counter-keys.js';
import { failClosed, outageLog } from './fail-closed.js';
import { openPostgresCounters } from './postgres-counters.js';
import { openRedisCounters } from './redis-counters.js';
import { sharedBackoff, sharedWindowLimit } from './shared-backoff.js';

export interface Counters {
  /** `"memory"`, `"PostgreSQL"` or `"Redis"`. */
  readonly kind: string;
  /** A back-off for one throttle; `namespace` keeps its keys apart from the others'. */
  backoff(namespace: string, rule: BackoffRule): Backoff;
  /** A fixed-window limit; `namespace` keeps its keys apart from the others'. */
  windowLimit(namespace: string, rule: WindowRule): WindowCounter;
  /** The device page's wrong-code window when shared; `undefined` keeps it in the store (`failed-attempts.ts`). */
  deviceFailedAttempts(options: { clock: Clock; maxFailures: number; windowSeconds: number }): FailedAttempts | undefined;
  /** Waits (bounded) for the first connection, so a node's first requests are not refused. */
  ready(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Counters in this process. One back-off (and one window limit) per namespace, so every throttle that counts in a
 * namespace (the password grant and the device page both count 'password') shares its counts,
 * as they would in a shared store.
 */
export function memoryCounters(): Counters {
  const backoffs = new Map<string, Backoff>();
  const windows = new Map<string, WindowCounter>();
  return {
    kind: 'memory',
    backoff(namespace, rule) {
      let backoff = backoffs.get(namespace);
      if (!backoff) backoffs.set(namespace, (backoff = memoryBackoff(rule)));
      return backoff;
    },
    windowLimit(namespace, rule) {
      let limit = windows.get(namespace);
      if (!limit) windows.set(namespace, (limit = memoryWindowLimit(rule)));
      return limit;
    },
    deviceFailedAttempts: () => undefined,
    ready: async () => {},
    close: async () => {},
  };
}

export function createCounters(
  // `deviceFlow` is not read (the page secret was `deviceFlow.cookieSecret` once); callers that
  // still hand it over need not change.
  config: Pick<ResolvedConfig, 'counters' | 'counterKeyPrefix' | 'store' | 'cleanupInterval'> & {
    readonly pageSecret?: string | undefined;
    readonly deviceFlow?: unknown;
  },
  deps: { logger: Logger; clock: Clock; /** The root secret the shared keys are digested under (`counter-keys.ts`). */ rootSecret: () => Buffer },
): Counters {
  if (config.counters === 'memory') return memoryCounters();
  const name = config.counters === 'store' ? 'PostgreSQL' : 'Redis';
  const outage = outageLog(deps.logger, name);
  const raw = config.counters === 'store'
    ? openPostgresCounters(config.store, { onPoolError: (err) => outage.failed(err.message) })
    : openRedisCounters(config.counters, { keyPrefix: config.counterKeyPrefix, onError: (err) => outage.failed(err.message) });
  // The stored root secret is shared only by nodes that share the store. Nodes that each keep
  // their own in this process (`memory`) share nothing secret unless `pageSecret`
  // is configured: their keys stay plain digests, so that the nodes still count as one.
  const shareNoSecret = (config.store === 'memory' || config.store === 'sqlite::memory:') && config.pageSecret === undefined;
  if (shareNoSecret) {
    deps.logger.warn({ counters: name }, 'shared counter keys are plain SHA-256 digests, which a dictionary of usernames reverses: with an in-memory store the nodes share no secret; set pageSecret (before its rename: set deviceFlow.cookieSecret)');
  }
  return sharedCounters(failClosed(raw, outage), { clock: deps.clock, sweepSeconds: config.cleanupInterval, keys: counterKeys(shareNoSecret ? undefined : deps.rootSecret) });
}

export function sharedCounters(store: CounterStore, deps: { clock: Clock; sweepSeconds: number; keys: CounterKeys }): Counters {
  // A sweep still running when the next is due is left to finish: two would only contend for the same rows.
  let sweeping = false;
  const sweeper = store.sweep && setInterval(() => {
    if (sweeping) return;
    sweeping = true;
    store.sweep!(deps.clock.now()).catch(() => undefined).finally(() => { sweeping = false; });
  }, deps.sweepSeconds * 1000);
  sweeper?.unref();
  return {
    kind: store.name,
    backoff: (namespace, rule) => sharedBackoff(store, namespace, rule, deps.keys),
    windowLimit: (namespace, rule) => sharedWindowLimit(store, namespace, rule, deps.keys),
    deviceFailedAttempts: ({ clock, maxFailures, windowSeconds }) => {
      // The address only ever reaches the counter store as its keyed digest.
      const keyOf = (address: string): string => `device:${deps.keys(address)}`;
      const blockedAt = (w: { count: number; endsAt: number } | undefined): number | undefined =>
        w && w.count >= maxFailures ? w.endsAt : undefined;
      return {
        blockedUntil: async (address) => blockedAt(await store.windowPeek(keyOf(address), clock.now())),
        recordFailure: async (address) => blockedAt(await store.windowHit(keyOf(address), clock.now(), windowSeconds * 1000)),
      };
    },
    ready: async () => {
      await store.ready?.();
    },
    async close() {
      if (sweeper) clearInterval(sweeper);
      await store.close();
    },
  };
}
