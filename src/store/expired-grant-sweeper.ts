import type { Clock } from '../sdk/contracts.js';
import type { Store } from './store.js';

export interface ExpiredGrantSweeperOptions {
  store: Store;
  intervalSeconds: number;
  /** Most rows one delete statement removes. Default 500. */
  batchSize?: number;
  clock: Clock;
  /** Receives every failure; the sweeper keeps its schedule. */
  onError: (error: unknown) => void;
}

export interface ExpiredGrantSweeper {
  stop(): void;
}

/**
 * Deletes expired grants every `intervalSeconds`, in batches until a batch comes back short.
 * The timer never keeps the process alive and never throws.
 */
export function startExpiredGrantSweeper(options: ExpiredGrantSweeperOptions): ExpiredGrantSweeper {
  const { store, intervalSeconds, batchSize = 500, clock, onError } = options;
  if (!(intervalSeconds > 0)) throw new Error(`intervalSeconds must be positive, got ${intervalSeconds}.`);
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new Error(`batchSize must be a positive integer, got ${batchSize}.`);

  let stopped = false;
  let timer: NodeJS.Timeout | undefined;

  async function sweep(): Promise<void> {
    const now = clock.now();
    while (!stopped && (await store.removeExpired(now, batchSize)) === batchSize);
  }

  // A chained timeout rather than setInterval: a slow sweep never overlaps the next one.
  function schedule(): void {
    if (stopped) return;
    timer = setTimeout(() => {
      sweep()
        .catch((error: unknown) => {
          try {
            onError(error);
          } catch {
            // A throwing reporter must not kill the schedule or surface as an unhandled rejection.
          }
        })
        .finally(schedule);
    }, intervalSeconds * 1000);
    timer.unref();
  }

  schedule();
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
