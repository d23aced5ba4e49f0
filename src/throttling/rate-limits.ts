/**
 * The counters that keep callers from exhausting the service, each behind one small interface.
 *
 * - `Backoff`: failures per key; from a threshold on, each failure makes the key wait longer
 *   (1 s, 2 s, 4 s, ... up to `maxDelay`). For guessing: client secrets, passwords. It lives in
 *   this process (`memoryBackoff`, the default) or in a store every node shares
 *   (`counters.ts`, `counters: "store" | "redis://..."`), so N nodes do not give an attacker
 *   N times the attempts.
 * - `WindowLimit`: events per key in a fixed window; over the limit, the key waits for the
 *   window's end. For floods: introspection misses, device authorizations. Always per process:
 *   they protect each node's own capacity.
 *
 * A `Backoff` answers synchronously when it is in memory and with a promise when it is shared:
 * callers await only a promise, so the default costs the hot path (client authentication on
 * every token request) no extra turn of the event loop.
 *
 * Both answer 429 with `Retry-After` (RFC 6585 §4) through `tooManyRequests`
 * (`src/throttling/too-many-requests.ts`).
 */
export type MaybePromise<T> = T | Promise<T>;

/** One failure to count: the key and the number of failures from which it must wait. */
export interface Failure {
  readonly key: string;
  readonly threshold: number;
}

export interface BackoffCheck {
  /** Milliseconds the longest-blocked key must still wait; 0 when all may try. */
  readonly waitMs: number;
  /** Some key holds a live failure counter (a success has something to reset). */
  readonly counted: boolean;
}

export interface Backoff {
  check(keys: readonly string[], now: number): MaybePromise<BackoffCheck>;
  /** Counts a failure per entry; from its `threshold` failures on, each one sets a longer wait. */
  failed(failures: readonly Failure[], now: number): MaybePromise<void>;
  /**
   * `check` of `keys` and, when none must wait, `failed` of `failures` in the same step, so a
   * burst of requests in flight at once cannot all pass before the first is counted. Returns the
   * wait (0: counted and may go on).
   */
  attempt(keys: readonly string[], failures: readonly Failure[], now: number): MaybePromise<number>;
  /** Forgets the keys, after a success. */
  reset(keys: readonly string[]): MaybePromise<void>;
}

/** The one delay rule of every back-off, whichever store counts: 1 s at the threshold, doubling up to `maxDelay`. */
export function backoffDelayMs(failures: number, threshold: number, maxDelay: number): number {
  return failures >= threshold ? Math.min(maxDelay, 2 ** Math.min(failures - threshold, 20)) * 1000 : 0;
}

/** Events per key in a fixed window, counted where the back-offs are (in this process or shared by every node). */
export interface WindowCounter {
  /** Counts one event for `key`; answers the milliseconds it must wait when it is over the limit (0: counted, go on). */
  take(key: string, now: number): MaybePromise<number>;
}

export interface WindowRule {
  /** Events per key per window. */
  readonly limit: number;
  /** Window in seconds. */
  readonly window: number;
}

export interface WindowLimit {
  /** Milliseconds until `key` may be counted again; 0 when it is under its limit. */
  waitMs(key: string, now: number): number;
  /** Counts one event for `key`. */
  hit(key: string, now: number): void;
  /** `waitMs`, counting the event when it is 0. */
  take(key: string, now: number): number;
}

/** Counters kept at most; past it the oldest is dropped, so a spray of keys cannot exhaust memory. */
const maxEntries = 100_000;

function bounded<T>(map: Map<string, T>, key: string, value: T): T {
  if (map.size >= maxEntries) map.delete(map.keys().next().value as string);
  map.set(key, value);
  return value;
}

interface Failures {
  failures: number;
  lastAt: number;
  blockedUntil: number;
}

export function memoryBackoff(options: { maxDelay: number; window: number }): Backoff {
  const counters = new Map<string, Failures>();
  // Quiet time is counted from the later of the last failure and the end of the back-off: counted
  // from the first failure, a caller who keeps failing would start over (with free attempts)
  // every window, and a maxDelay near or above the window could never be reached.
  const forgotten = (c: Failures, now: number): boolean => now - Math.max(c.lastAt, c.blockedUntil) > options.window * 1000;
  function live(key: string, now: number): Failures | undefined {
    const c = counters.get(key);
    if (c && forgotten(c, now)) {
      counters.delete(key);
      return undefined;
    }
    return c;
  }
  function waitMs(keys: readonly string[], now: number): number {
    let wait = 0;
    for (const key of keys) wait = Math.max(wait, (live(key, now)?.blockedUntil ?? 0) - now);
    return wait;
  }
  function failed(failures: readonly Failure[], now: number): void {
    for (const { key, threshold } of failures) {
      const c = live(key, now) ?? bounded(counters, key, { failures: 0, lastAt: now, blockedUntil: 0 });
      c.failures += 1;
      c.lastAt = now;
      if (c.failures >= threshold) c.blockedUntil = now + backoffDelayMs(c.failures, threshold, options.maxDelay);
    }
  }
  return {
    check(keys, now) {
      let wait = 0;
      let counted = false;
      for (const key of keys) {
        const c = live(key, now);
        if (!c) continue;
        counted = true;
        wait = Math.max(wait, c.blockedUntil - now);
      }
      return { waitMs: wait, counted };
    },
    failed,
    attempt(keys, failures, now) {
      const wait = waitMs(keys, now);
      if (wait === 0) failed(failures, now);
      return wait;
    },
    reset(keys) {
      for (const key of keys) counters.delete(key);
    },
  };
}

interface Window {
  count: number;
  endsAt: number;
}

export function memoryWindowLimit(options: { limit: number; window: number }): WindowLimit {
  const windows = new Map<string, Window>();
  const windowMs = options.window * 1000;
  const limit: WindowLimit = {
    waitMs(key, now) {
      const w = windows.get(key);
      if (!w) return 0;
      if (now >= w.endsAt) {
        windows.delete(key);
        return 0;
      }
      return w.count >= options.limit ? w.endsAt - now : 0;
    },
    hit(key, now) {
      let w = windows.get(key);
      if (!w || now >= w.endsAt) w = bounded(windows, key, { count: 0, endsAt: now + windowMs });
      w.count += 1;
    },
    take(key, now) {
      const wait = limit.waitMs(key, now);
      if (wait === 0) limit.hit(key, now);
      return wait;
    },
  };
  return limit;
}
