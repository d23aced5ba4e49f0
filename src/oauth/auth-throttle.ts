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
import { memoryBackoff, tooManyRequests, type Backoff } from './rate-limits.js';

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

export interface AuthThrottle {
  /** Throws 429 when the caller must wait. */
  check(clientId: string | undefined, address: string, now: number): void;
  failed(clientId: string | undefined, address: string, now: number): void;
  succeeded(clientId: string, address: string): void;
}

export function createAuthThrottle(options: AuthThrottleOptions, backoff: Backoff = memoryBackoff(options)): AuthThrottle {
  const pairKey = (clientId: string | undefined, address: string): string => `p\u0000${clientId ?? ''}\u0000${address}`;
  const addressKey = (address: string): string => `a\u0000${address}`;

  return {
    check(clientId, address, now) {
      const wait = Math.max(backoff.waitMs(pairKey(clientId, address), now), backoff.waitMs(addressKey(address), now));
      if (wait > 0) throw tooManyRequests(wait, 'Too many failed authentications', 'authentication throttled');
    },
    failed(clientId, address, now) {
      backoff.failed(pairKey(clientId, address), options.pairThreshold, now);
      backoff.failed(addressKey(address), options.addressThreshold, now);
    },
    succeeded(clientId, address) {
      backoff.reset(pairKey(clientId, address));
    },
  };
}
