/**
 * Throttles failed client authentications with exponential back-off, answering 429 with
 * `Retry-After`.
 *
 * Two counters, chosen so an attacker cannot lock a real client out:
 * - per (client id, address): guessing one client's secret from one address slows down fast;
 *   the real client calling from its own address is untouched, and a success resets it;
 * - per address, with a much higher bar: spraying many client ids from one address slows down.
 * Nothing is counted per client id alone, since anyone can send failures for any id.
 * The address is the client's own behind a trusted proxy (`src/http/client-address.ts`).
 * Counters are in this process or shared by every node (`counters`), see `src/throttling/rate-limits.ts`:
 * in memory every method answers synchronously, shared ones return promises (one round trip each).
 */
import { memoryBackoff, type Backoff, type MaybePromise } from './rate-limits.js';
import { tooManyRequests } from './too-many-requests.js';

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
  /**
   * Throws (or rejects with) 429 when the caller must wait. Answers whether a failure counter
   * exists, so a success resets only what is there (no round trip for a clean client).
   */
  check(clientId: string | undefined, address: string, now: number): MaybePromise<boolean>;
  failed(clientId: string | undefined, address: string, now: number): MaybePromise<void>;
  succeeded(clientId: string, address: string): MaybePromise<void>;
}

export function createAuthThrottle(options: AuthThrottleOptions, backoff: Backoff = memoryBackoff(options)): AuthThrottle {
  const pairKey = (clientId: string | undefined, address: string): string => `p\u0000${clientId ?? ''}\u0000${address}`;
  const addressKey = (address: string): string => `a\u0000${address}`;
  const verdict = ({ waitMs, counted }: { waitMs: number; counted: boolean }): boolean => {
    if (waitMs > 0) throw tooManyRequests(waitMs, 'Too many failed authentications', 'authentication throttled');
    return counted;
  };

  return {
    check(clientId, address, now) {
      const state = backoff.check([pairKey(clientId, address), addressKey(address)], now);
      return state instanceof Promise ? state.then(verdict) : verdict(state);
    },
    failed(clientId, address, now) {
      return backoff.failed([
        { key: pairKey(clientId, address), threshold: options.pairThreshold },
        { key: addressKey(address), threshold: options.addressThreshold },
      ], now);
    },
    succeeded(clientId, address) {
      return backoff.reset([pairKey(clientId, address)]);
    },
  };
}
