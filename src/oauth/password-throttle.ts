/**
 * Throttles password guessing at the password grant with the same back-off as the client
 * throttle (`auth-throttle.ts`), answering 429 with `Retry-After`. Three counters:
 * - per (username, address), low bar: one guesser slows down fast; the real user signing in
 *   from elsewhere is untouched;
 * - per username from all addresses, higher bar: guessing one account from many addresses
 *   (RFC 6819 §5.2.3.3 "online guessing"); an attacker can slow a user down this way, which is
 *   why its bar is higher and a successful sign-in clears it;
 * - per address across usernames, highest bar: spraying one password over many accounts.
 * Keys are the username as sent, never whether it exists: an unknown username gets exactly the
 * answers a known one gets.
 *
 * The first two are counted before the password is checked (a burst of requests in flight at
 * once cannot all pass the check before the first failure is counted) and cleared on success;
 * the address counter counts real failures only, so many users signing in behind one address
 * never add up.
 */
import { memoryBackoff, tooManyRequests, type Backoff } from './rate-limits.js';

export interface PasswordThrottleOptions {
  pairThreshold: number;
  userThreshold: number;
  addressThreshold: number;
  maxDelay: number;
  window: number;
}

export interface PasswordThrottle {
  /** Throws 429 when the caller must wait; otherwise counts the attempt as a failure until `succeeded`. */
  attempt(username: string, address: string | undefined, now: number): void;
  failed(address: string | undefined, now: number): void;
  succeeded(username: string, address: string | undefined): void;
}

/** Case and Unicode form do not make a new account to guess at for a user store that ignores them. */
const userOf = (username: string): string => username.normalize('NFC').toLowerCase();

export function createPasswordThrottle(options: PasswordThrottleOptions, backoff: Backoff = memoryBackoff(options)): PasswordThrottle {
  const userKey = (username: string): string => `u\u0000${userOf(username)}`;
  const pairKey = (username: string, address: string): string => `p\u0000${userOf(username)}\u0000${address}`;
  const addressKey = (address: string): string => `a\u0000${address}`;

  return {
    attempt(username, address, now) {
      let wait = backoff.waitMs(userKey(username), now);
      if (address !== undefined) {
        wait = Math.max(wait, backoff.waitMs(pairKey(username, address), now), backoff.waitMs(addressKey(address), now));
      }
      if (wait > 0) throw tooManyRequests(wait, 'Too many failed sign-ins', 'password sign-in throttled');
      backoff.failed(userKey(username), options.userThreshold, now);
      if (address !== undefined) backoff.failed(pairKey(username, address), options.pairThreshold, now);
    },
    failed(address, now) {
      if (address !== undefined) backoff.failed(addressKey(address), options.addressThreshold, now);
    },
    succeeded(username, address) {
      backoff.reset(userKey(username));
      if (address !== undefined) backoff.reset(pairKey(username, address));
    },
  };
}
