/**
 * The counters that keep callers from exhausting the service, each behind one small interface so
 * they can move to a shared store later without touching their users. Today they live in this
 * process, bounded in memory (with several workers, each counts on its own).
 *
 * - `Backoff`: failures per key; from a threshold on, each failure makes the key wait longer
 *   (1 s, 2 s, 4 s, ... up to `maxDelay`). For guessing: client secrets, passwords.
 * - `WindowLimit`: events per key in a fixed window; over the limit, the key waits for the
 *   window's end. For floods: introspection misses, device authorizations.
 *
 * Both answer 429 with `Retry-After` (RFC 6585 §4) through `tooManyRequests`.
 */
import { OAuthError } from './errors.js';

export interface Backoff {
  /** Milliseconds `key` must still wait; 0 when it may try. */
  waitMs(key: string, now: number): number;
  /** Counts a failure; from `threshold` failures on, each one sets a longer wait. */
  failed(key: string, threshold: number, now: number): void;
  /** Forgets `key`, after a success. */
  reset(key: string): void;
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
  return {
    waitMs(key, now) {
      const c = counters.get(key);
      if (!c) return 0;
      if (forgotten(c, now)) {
        counters.delete(key);
        return 0;
      }
      return Math.max(0, c.blockedUntil - now);
    },
    failed(key, threshold, now) {
      let c = counters.get(key);
      if (!c || forgotten(c, now)) c = bounded(counters, key, { failures: 0, lastAt: now, blockedUntil: 0 });
      c.failures += 1;
      c.lastAt = now;
      if (c.failures >= threshold) {
        const delay = Math.min(options.maxDelay, 2 ** Math.min(c.failures - threshold, 20));
        c.blockedUntil = now + delay * 1000;
      }
    },
    reset(key) {
      counters.delete(key);
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

/**
 * The one answer of every limit: 429 with `Retry-After` in whole seconds. RFC 6749 has no code
 * for it; `temporarily_unavailable` (RFC 6749 §4.1.2.1, "unable to handle the request due to a
 * temporary overloading") says "come back later" to any OAuth client, and the status and header
 * say when. `slow_down` is only a device-polling answer (RFC 8628 §3.5).
 */
export function tooManyRequests(waitMs: number, what: string, logDetail: string): OAuthError {
  const seconds = Math.max(1, Math.ceil(waitMs / 1000));
  return new OAuthError('temporarily_unavailable', `${what}; retry after ${seconds} seconds.`, {
    status: 429,
    headers: { 'Retry-After': String(seconds) },
    logDetail,
  });
}
