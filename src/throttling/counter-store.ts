/**
 * A store every node shares for the guessing counters (PostgreSQL or Redis), as the few
 * operations the throttles need, each one round trip. Keys arrive namespaced and hashed
 * (`shared-backoff.ts`): the store never holds a username, client id or address.
 */
import type { BackoffCheck, Failure } from './rate-limits.js';
import { StoreUnavailableError } from '../store/store.js';

export interface BackoffRule {
  /** Longest back-off, seconds. */
  readonly maxDelay: number;
  /** Seconds without a failure (once any back-off has ended) after which a counter is forgotten. */
  readonly window: number;
}

export interface CounterStore {
  /** `"PostgreSQL"` or `"Redis"`, for log lines. */
  readonly name: string;
  check(keys: readonly string[], now: number): Promise<BackoffCheck>;
  /**
   * Counts a failure per entry. With `gate`, first takes the wait over those keys and counts
   * nothing when it is above 0; answers the wait (0 when counted).
   */
  count(failures: readonly Failure[], now: number, rule: BackoffRule, gate?: readonly string[]): Promise<number>;
  reset(keys: readonly string[]): Promise<void>;
  /** Adds one to `key`'s fixed window (a new one of `windowMs` when none is live); answers the window after it. */
  windowHit(key: string, now: number, windowMs: number): Promise<WindowState>;
  /** The live window of `key`, if any. */
  windowPeek(key: string, now: number): Promise<WindowState | undefined>;
  /** Resolves once connected, or after a bounded wait at start-up (then callers get 503 until it connects). */
  ready?(): Promise<void>;
  /**
   * Deletes forgotten counters, where the store does not expire them itself, in statements of at
   * most `batchSize` rows (default 500) until one comes back short; returns how many it deleted.
   */
  sweep?(now: number, batchSize?: number): Promise<number>;
  close(): Promise<void>;
}

export interface WindowState {
  readonly count: number;
  /** Epoch milliseconds. */
  readonly endsAt: number;
}

/**
 * The counter store did not answer. A kind of `StoreUnavailableError`, so every endpoint answers
 * it as a store outage: 503 `temporarily_unavailable` with `Retry-After`, never letting the
 * caller through uncounted.
 */
export class CountersUnavailableError extends StoreUnavailableError {}
