/**
 * A counter store that cannot be reached must neither open the gates nor take the service
 * down: each operation that fails becomes `CountersUnavailableError` for its caller alone (503),
 * the outage is logged once when it starts and once when it ends, and the next operation tries
 * again, so the service recovers by itself.
 */
import type { Logger } from '../sdk/contracts.js';
import { CountersUnavailableError, type CounterStore } from './counter-store.js';

export interface OutageLog {
  /** Logs the first failure of an outage; later ones are quiet until `recovered`. */
  failed(detail: string): void;
  recovered(): void;
}

export function outageLog(logger: Logger, name: string): OutageLog {
  let down = false;
  return {
    failed(detail) {
      if (down) return;
      down = true;
      logger.error({ counters: name, detail }, 'counter store unreachable: answering 503 to the requests it would count until it is back');
    },
    recovered() {
      if (!down) return;
      down = false;
      logger.info({ counters: name }, 'counter store reachable again');
    },
  };
}

/** Only the message: a driver's error object may carry connection settings. */
const detailOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

export function failClosed(store: CounterStore, outage: OutageLog): CounterStore {
  async function guarded<T>(op: () => Promise<T>): Promise<T> {
    let result: T;
    try {
      result = await op();
    } catch (err) {
      outage.failed(detailOf(err));
      throw new CountersUnavailableError(`${store.name} counters: ${detailOf(err)}`, { cause: err });
    }
    outage.recovered();
    return result;
  }
  return {
    name: store.name,
    check: (keys, now) => guarded(() => store.check(keys, now)),
    count: (failures, now, rule, gate) => guarded(() => store.count(failures, now, rule, gate)),
    reset: (keys) => guarded(() => store.reset(keys)),
    windowHit: (key, now, windowMs) => guarded(() => store.windowHit(key, now, windowMs)),
    windowPeek: (key, now) => guarded(() => store.windowPeek(key, now)),
    ...(store.ready ? { ready: () => store.ready!() } : {}),
    // Passed through unguarded: a failed sweep is retried next interval and must not count as an outage of the checks.
    ...(store.sweep ? { sweep: (now: number, batchSize?: number) => store.sweep!(now, batchSize) } : {}),
    close: () => store.close(),
  };
}
