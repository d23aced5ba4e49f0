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
 *
 * Counters are in this process or shared by every node (`counters`), see `src/throttling/rate-limits.ts`;
 * `attempt` checks and counts in one step (one round trip when shared).
 */
import { memoryBackoff, type Backoff, type MaybePromise } from './rate-limits.js';
import { tooManyRequests } from './too-many-requests.js';

export interface PasswordThrottleOptions {
  pairThreshold: number;
  userThreshold: number;
  addressThreshold: number;
  maxDelay: number;
  window: number;
}

export interface PasswordThrottle {
  /** Throws 429 when the caller must wait; otherwise counts the attempt as a failure until `succeeded`. */
  attempt(username: string, address: string | undefined, now: number): MaybePromise<void>;
  failed(address: string | undefined, now: number): MaybePromise<void>;
  succeeded(username: string, address: string | undefined): MaybePromise<void>;
}

/** Case and Unicode form do not make a new account to guess at for a user store that ignores them. */
const userOf = (username: string): string => username.normalize('NFC').toLowerCase();

function refuseIfWaiting(wait: number): void {
  if (wait > 0) throw tooManyRequests(wait, 'Too many failed sign-ins', 'password sign-in throttled');
}

export function createPasswordThrottle(options: PasswordThrottleOptions, backoff: Backoff = memoryBackoff(options)): PasswordThrottle {
  const userKey = (username: string): string => `u\u0000${userOf(username)}`;
  const pairKey = (username: string, address: string): string => `p\u0000${userOf(username)}\u0000${address}`;
  const addressKey = (address: string): string => `a\u0000${address}`;

  return {
    attempt(username, address, now) {
      const user = { key: userKey(username), threshold: options.userThreshold };
      const keys = address === undefined ? [user.key] : [user.key, pairKey(username, address), addressKey(address)];
      const failures = address === undefined ? [user] : [user, { key: pairKey(username, address), threshold: options.pairThreshold }];
      const wait = backoff.attempt(keys, failures, now);
      return typeof wait === 'number' ? refuseIfWaiting(wait) : wait.then(refuseIfWaiting);
    },
    failed(address, now) {
      if (address !== undefined) return backoff.failed([{ key: addressKey(address), threshold: options.addressThreshold }], now);
    },
    succeeded(username, address) {
      return backoff.reset(address === undefined ? [userKey(username)] : [userKey(username), pairKey(username, address)]);
    },
  };
}
