/**
 * How many clients anonymous callers may register (issue 36, the `"open"` registration policy):
 * each one is a record every node loads, made by somebody nobody has authenticated. Two fixed
 * windows, counted where the other limits count (`counters`): one per client address and one for
 * the whole service. Over either, 429 with `Retry-After` (RFC 6585 §4) before anything is
 * written. The same shape as the interaction limit (`authorize/interaction-limit.ts`).
 */
import type { Clock } from '../sdk/contracts.js';
import type { WindowCounter } from './rate-limits.js';
import { tooManyRequests } from './too-many-requests.js';

export interface OpenRegistrationLimit {
  /** Counts one registration for `address`; throws the 429 `OAuthError` when it must wait. */
  admit(address: string | undefined): Promise<void>;
}

const everyone = 'all';

export function createOpenRegistrationLimit({ perAddress, total, clock }: { perAddress: WindowCounter; total: WindowCounter; clock: Clock }): OpenRegistrationLimit {
  return {
    async admit(address) {
      const now = clock.now();
      const waitAddress = await perAddress.take(address ?? 'unknown', now);
      if (waitAddress > 0) throw tooManyRequests(waitAddress, 'Too many clients registered from this address', 'open registration limit per address reached');
      const waitTotal = await total.take(everyone, now);
      if (waitTotal > 0) throw tooManyRequests(waitTotal, 'Too many clients registered', 'open registration limit of the service reached');
    },
  };
}
