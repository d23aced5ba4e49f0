/**
 * Wrong bearer tokens at `/connect/register` (an initial access token, RFC 7591 §3, or a
 * registration access token, RFC 7592 §3), counted per address with the back-off of the other
 * throttles (`throttling/rate-limits.ts`): from `threshold` failures on, the address waits 1 s, 2 s,
 * 4 s, ... up to `maxDelay` and is answered 429 with `Retry-After`, before any store read. The
 * tokens are 256-bit random, so this is not what keeps them from being guessed; it keeps an
 * anonymous caller from probing (and costing a store read per try) at will. Counted in this
 * process or shared by every node (`counters`), in the namespace "registration".
 */
import type { Backoff, MaybePromise } from './rate-limits.js';
import { tooManyRequests } from './too-many-requests.js';

export interface RegistrationTokenThrottle {
  /** Throws (or rejects with) 429 when the address must wait. */
  check(address: string | undefined, now: number): MaybePromise<void>;
  failed(address: string | undefined, now: number): MaybePromise<void>;
}

export function createRegistrationTokenThrottle(options: { threshold: number }, backoff: Backoff): RegistrationTokenThrottle {
  const keyOf = (address: string): string => `t\u0000${address}`;
  const verdict = ({ waitMs }: { waitMs: number }): void => {
    if (waitMs > 0) throw tooManyRequests(waitMs, 'Too many wrong registration tokens', 'registration token throttled');
  };
  return {
    check(address, now) {
      if (address === undefined) return;
      const state = backoff.check([keyOf(address)], now);
      return state instanceof Promise ? state.then(verdict) : verdict(state);
    },
    failed(address, now) {
      if (address === undefined) return;
      return backoff.failed([{ key: keyOf(address), threshold: options.threshold }], now);
    },
  };
}
