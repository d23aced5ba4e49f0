/**
 * Rate limit of wrong user codes per client address (RFC 8628 §5.1: user codes are short, so
 * guessing must be throttled). A fixed window per address, counted in the store with
 * compare-and-set, so every node sharing the store sees the same count.
 */
import type { Clock } from '../sdk/contracts.js';
import { DuplicateKeyError, type Store } from '../store/store.js';

export interface FailedAttempts {
  /** Epoch ms until which the address must wait, or `undefined` when it may try. */
  blockedUntil(address: string): Promise<number | undefined>;
  /** Counts a wrong code; returns `blockedUntil` as it stands afterwards. */
  recordFailure(address: string): Promise<number | undefined>;
}

interface Window {
  readonly count: number;
}

const recordType = 'device_failed_attempts';
/** The address only ever reaches the store hashed (as every key does). */
const keyOf = (address: string): string => `device_failed_attempts:${address}`;
const casAttempts = 10;

export function createFailedAttempts(deps: { store: Store; clock: Clock; maxFailures: number; windowSeconds: number }): FailedAttempts {
  const { store, clock, maxFailures } = deps;
  const windowMs = deps.windowSeconds * 1000;

  async function current(address: string, now: number) {
    const record = await store.get(keyOf(address));
    return record && record.type === recordType && record.expiresAt > now ? record : undefined;
  }

  const blockedAt = (count: number, windowEnd: number): number | undefined => (count >= maxFailures ? windowEnd : undefined);

  return {
    async blockedUntil(address) {
      const record = await current(address, clock.now());
      return record && blockedAt((JSON.parse(record.data) as Window).count, record.expiresAt);
    },

    async recordFailure(address) {
      for (let attempt = 0; attempt < casAttempts; attempt++) {
        const now = clock.now();
        const record = await current(address, now);
        if (!record) {
          try {
            // An expired window is replaced by the store's `add`; a live one held by another node is a duplicate.
            await store.add({
              key: keyOf(address), type: recordType, clientId: '', subjectId: undefined, sessionId: undefined,
              createdAt: now, expiresAt: now + windowMs, consumedAt: undefined, data: JSON.stringify({ count: 1 } satisfies Window),
            });
            return blockedAt(1, now + windowMs);
          } catch (err) {
            if (err instanceof DuplicateKeyError) continue;
            throw err;
          }
        }
        const count = (JSON.parse(record.data) as Window).count + 1;
        const next = JSON.stringify({ count } satisfies Window);
        if (await store.update(keyOf(address), { data: next, expectedData: record.data })) return blockedAt(count, record.expiresAt);
      }
      // Heavy contention on one address is itself a sign of guessing.
      return clock.now() + windowMs;
    },
  };
}
