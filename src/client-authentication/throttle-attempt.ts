/**
 * Step 3a, throttle: the auth throttle (`throttling/auth-throttle.ts`) around one attempt. Checked
 * once the credentials name an id and before a secret is judged, so a caller in back-off spends
 * no hash; a failure counts, a success resets what was counted. Each call answers a promise only
 * when the counters are shared: in memory the hot path awaits nothing.
 */
import type { Clock, CredentialSource } from '../sdk/contracts.js';
import type { AuthThrottle } from '../throttling/auth-throttle.js';
import type { Attempt } from './types.js';

export interface AttemptThrottle {
  /** Throws (or rejects with) 429 while the caller must wait; notes in the attempt whether failures are counted. */
  check(id: string, source: CredentialSource, attempt: Attempt): Promise<void> | undefined;
  /** Resets the caller's failures, when there are any (no round trip for a clean client). */
  succeeded(id: string, source: CredentialSource, attempt: Attempt): ReturnType<AuthThrottle['succeeded']>;
  failed(id: string | undefined, source: CredentialSource): ReturnType<AuthThrottle['failed']>;
}

/** Without a throttle every call answers at once; without a caller address nothing is counted. */
export function createAttemptThrottle(throttle: AuthThrottle | undefined, clock: Clock): AttemptThrottle {
  return {
    check(id, source, attempt) {
      if (!throttle || !source.remoteAddress) return undefined;
      const counted = throttle.check(id, source.remoteAddress, clock.now());
      if (typeof counted === 'boolean') {
        attempt.counted = counted;
        return undefined;
      }
      return counted.then((c) => {
        attempt.counted = c;
      });
    },
    succeeded(id, source, attempt) {
      if (!throttle || !source.remoteAddress || !attempt.counted) return undefined;
      return throttle.succeeded(id, source.remoteAddress);
    },
    failed(id, source) {
      if (!throttle || !source.remoteAddress) return undefined;
      return throttle.failed(id, source.remoteAddress, clock.now());
    },
  };
}
