/**
 * A sign-in on any page, under the password grant's throttle (`throttling/password-throttle.ts`):
 * the attempt is counted for the username and address before anything is checked, a failure
 * counts against the address, a success clears the username's counts. One helper for every
 * page, so no page is a side door for guessing that the others close.
 */
import type { Clock } from '../sdk/contracts.js';
import { isOAuthError } from '../sdk/errors.js';
import type { PasswordThrottle } from './password-throttle.js';

export type ThrottledSignInResult<T> =
  | { readonly outcome: 'accepted' | 'rejected'; readonly result: T }
  /** The caller must wait `retryAfterSeconds` before trying again; nothing was checked. */
  | { readonly outcome: 'throttled'; readonly retryAfterSeconds: number };

export interface ThrottledSignIn {
  /**
   * Counts the attempt, runs `check` unless the caller must wait, and records how it went:
   * `accepted(result)` says whether the person signed in.
   */
  attempt<T>(
    username: string, remoteAddress: string | undefined, check: () => Promise<T>, accepted: (result: T) => boolean,
  ): Promise<ThrottledSignInResult<T>>;
}

export function createThrottledSignIn({ passwordThrottle, clock }: { passwordThrottle: PasswordThrottle; clock: Clock }): ThrottledSignIn {
  return {
    async attempt(username, remoteAddress, check, accepted) {
      try {
        await passwordThrottle.attempt(username, remoteAddress, clock.now());
      } catch (err) {
        if (!isOAuthError(err) || err.status !== 429) throw err;
        return { outcome: 'throttled', retryAfterSeconds: Math.max(1, Number(err.headers['Retry-After']) || 1) };
      }
      const result = await check();
      if (!accepted(result)) {
        await passwordThrottle.failed(remoteAddress, clock.now());
        return { outcome: 'rejected', result };
      }
      await passwordThrottle.succeeded(username, remoteAddress);
      return { outcome: 'accepted', result };
    },
  };
}
