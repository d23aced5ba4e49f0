/**
 * Throttles failed client authentications with exponential back-off, answering 429 with
 * `Retry-After`.
 *
 * Two counters, chosen so an attacker cannot lock a real client out:
 * - per (client id, address): guessing one client's secret from one address slows down fast;
 *   the real client calling from its own address is untouched, and a success resets it;
 * - per address, with a much higher bar: spraying many client ids from one address slows down.
 * Nothing is counted per client id alone, since anyone can send failures for any id.
 * The counters live in the process: with several workers each counts on its own.
 */
import { OAuthError } from './errors.js';

export interface AuthThrottleOptions {
  /** Failures per (client, address) before back-off starts. */
  pairThreshold: number;
  /** Failures per address before back-off starts. */
  addressThreshold: number;
  /** Longest back-off, seconds. */
  maxDelay: number;
  /** Seconds without a failure, once any back-off has ended, after which a counter is forgotten. */
  window: number;
}

interface Counter {
  failures: number;
  lastAt: number;
  blockedUntil: number;
}

export interface AuthThrottle {
  /** Throws 429 when the caller must wait. */
  check(clientId: string | undefined, address: string, now: number): void;
  failed(clientId: string | undefined, address: string, now: number): void;
  succeeded(clientId: string, address: string): void;
}

const maxEntries = 100_000;

export function createAuthThrottle(options: AuthThrottleOptions): AuthThrottle {
  const counters = new Map<string, Counter>();

  // Quiet time is counted from the later of the last failure and the end of the back-off: counted
  // from the first failure, a caller who keeps failing would start over (with free attempts)
  // every window, and a maxDelay near or above the window could never be reached.
  const forgotten = (c: Counter, now: number): boolean => now - Math.max(c.lastAt, c.blockedUntil) > options.window * 1000;

  function blockedFor(key: string, now: number): number {
    const c = counters.get(key);
    if (!c) return 0;
    if (forgotten(c, now)) {
      counters.delete(key);
      return 0;
    }
    return Math.max(0, c.blockedUntil - now);
  }

  function bump(key: string, threshold: number, now: number): void {
    let c = counters.get(key);
    if (!c || forgotten(c, now)) {
      if (counters.size >= maxEntries) counters.delete(counters.keys().next().value as string);
      c = { failures: 0, lastAt: now, blockedUntil: 0 };
      counters.set(key, c);
    }
    c.failures += 1;
    c.lastAt = now;
    if (c.failures >= threshold) {
      const delay = Math.min(options.maxDelay, 2 ** Math.min(c.failures - threshold, 20));
      c.blockedUntil = now + delay * 1000;
    }
  }

  const pairKey = (clientId: string | undefined, address: string): string => `p\u0000${clientId ?? ''}\u0000${address}`;
  const addressKey = (address: string): string => `a\u0000${address}`;

  return {
    check(clientId, address, now) {
      const wait = Math.max(blockedFor(pairKey(clientId, address), now), blockedFor(addressKey(address), now));
      if (wait > 0) {
        const seconds = Math.ceil(wait / 1000);
        throw new OAuthError('temporarily_unavailable', `Too many failed authentications; retry after ${seconds} seconds.`, {
          status: 429,
          headers: { 'Retry-After': String(seconds) },
          logDetail: 'authentication throttled',
        });
      }
    },
    failed(clientId, address, now) {
      bump(pairKey(clientId, address), options.pairThreshold, now);
      bump(addressKey(address), options.addressThreshold, now);
    },
    succeeded(clientId, address) {
      counters.delete(pairKey(clientId, address));
    },
  };
}
