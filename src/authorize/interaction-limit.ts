/**
 * How many authorization interactions may start: each one is a record in the store for 15
 * minutes, written for a browser nobody has authenticated yet. Without a bound, one address
 * could keep gigabytes in the store (issue 33, item 4). Two fixed windows, counted where the
 * other limits count (`counters`: this process, or PostgreSQL/Redis shared by every node):
 * one per client address and one for the whole service, so neither one address nor many
 * addresses together can hold more than `maxTotal` × (15 min / window) interactions.
 *
 * Over either limit the request is refused with 429 and `Retry-After` (RFC 6585 §4) before
 * anything is written; the page layer shows it as a message page, never a redirect (the
 * request's redirect URI belongs to whoever sent the link).
 */
import type { WindowCounter } from '../throttling/rate-limits.js';
import type { Clock } from '../sdk/contracts.js';
import { tooManyRequests } from '../throttling/too-many-requests.js';

export interface InteractionLimit {
  /** Counts one new interaction for `address`; throws the 429 `OAuthError` when it must wait. */
  admit(address: string | undefined): Promise<void>;
}

/** The one key of the service-wide window (its own namespace, apart from the addresses'). */
const everyone = 'all';

export function createInteractionLimit({ perAddress, total, clock }: { perAddress: WindowCounter; total: WindowCounter; clock: Clock }): InteractionLimit {
  return {
    async admit(address) {
      const now = clock.now();
      // The address first: a flood from one address is refused before it eats the shared allowance.
      const waitAddress = await perAddress.take(address ?? 'unknown', now);
      if (waitAddress > 0) throw tooManyRequests(waitAddress, 'Too many sign-ins started from this address', 'interaction limit per address reached');
      const waitTotal = await total.take(everyone, now);
      if (waitTotal > 0) throw tooManyRequests(waitTotal, 'Too many sign-ins started', 'interaction limit of the service reached');
    },
  };
}
