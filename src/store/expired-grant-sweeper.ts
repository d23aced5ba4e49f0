import type { Clock } from '../sdk/contracts.js';
import { acquireLease } from './lease.js';
import type { Store } from './store.js';

export interface ExpiredGrantSweeperOptions {
  store: Store;
  intervalSeconds: number;
  /** Most rows one delete statement removes. Default 500. */
  batchSize?: number;
  clock: Clock;
  /** Receives every failure; the sweeper keeps its schedule. */
  onError: (error: unknown) => void;
  /**
   * Nodes sharing a database take turns: each tick, only the node that takes the sweep lease
   * (`lease.ts`, held for one interval) deletes; the others only count. Default off, for a store
   * no other process opens.
   */
  shared?: boolean;
  /** Told after every tick what the sweep found and removed (e.g. for metrics). */
  onSweep?: (result: SweepResult) => void;
}

export interface SweepResult {
  /** Expired rows still stored when the tick began, by grant type: the backlog. `undefined` when not counted (no `onSweep`) or the count failed. */
  readonly expired: Readonly<Record<string, number>> | undefined;
  /** Rows this node deleted in this tick (0 when another node held the lease). */
  readonly removed: number;
  /** Delete statements this node ran in this tick. */
  readonly batches: number;
}

export interface ExpiredGrantSweeper {
  /** Runs one tick now (count, take the lease, delete until a batch is short); for tests and tools. */
  sweepNow(): Promise<SweepResult>;
  stop(): void;
}

/** The lease nodes sharing a store take turns with (`shared`), held for one `intervalSeconds` at a time. */
export const SWEEP_LEASE = 'expired-grant-sweep';

/**
 * Deletes expired grants every `intervalSeconds`, in batches until a batch comes back short.
 * The timer never keeps the process alive and never throws.
 */
export function startExpiredGrantSweeper(options: ExpiredGrantSweeperOptions): ExpiredGrantSweeper {
  const { store, intervalSeconds, batchSize = 500, clock, onError, shared = false, onSweep } = options;
  if (!(intervalSeconds > 0)) throw new Error(`intervalSeconds must be positive, got ${intervalSeconds}.`);
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new Error(`batchSize must be a positive integer, got ${batchSize}.`);

  let stopped = false;
  let timer: NodeJS.Timeout | undefined;

  function report(error: unknown): void {
    try {
      onError(error);
    } catch {
      // A throwing reporter must not kill the schedule or surface as an unhandled rejection.
    }
  }

  async function sweep(): Promise<SweepResult> {
    const now = clock.now();
    // Counted before deleting, on every node: what piled up since the last tick. It stays near one
    // interval's worth of expiries while the sweep keeps up, and grows when it does not.
    // A count that fails (on PostgreSQL, a backlog so big it runs past statement_timeout) is
    // reported and skipped: the deletes below are what shrink the backlog, and must still run.
    const expired = onSweep ? await store.countExpired(now).catch((error: unknown) => void report(error)) : undefined;
    let removed = 0;
    let batches = 0;
    // The lease lasts one interval: the holder's own next tick (an interval after this sweep ends)
    // finds it expired and takes it again, and so does any node whose tick comes first.
    if (!shared || (await acquireLease(store, SWEEP_LEASE, now, intervalSeconds * 1000))) {
      for (;;) {
        const count = await store.removeExpired(now, batchSize);
        removed += count;
        batches++;
        // Each batch is its own statement: the event loop runs the requests waiting on this
        // process in between (PostgreSQL answers over the network; SQLite's store yields first).
        if (stopped || count < batchSize) break;
      }
    }
    const result = { expired, removed, batches };
    onSweep?.(result);
    return result;
  }

  // A chained timeout rather than setInterval: a slow sweep never overlaps the next one.
  function schedule(): void {
    if (stopped) return;
    timer = setTimeout(() => {
      sweep()
        .catch(report)
        .finally(schedule);
    }, intervalSeconds * 1000);
    timer.unref();
  }

  schedule();
  return {
    sweepNow: sweep,
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
