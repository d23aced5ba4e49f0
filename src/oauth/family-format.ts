/**
 * Which grant-family format this node writes (src/oauth/grant-family.ts): time-ordered once the
 * database is contracted (`svc migrate contract`, src/store/sql/contracts.ts), plain before, as
 * nodes of the previous release may still share the database and cannot read the new format.
 *
 * Read once at start-up and then every `intervalMs` until the contract is seen (it is never
 * undone, so the timer then stops): a request only reads a property. Until a node has seen the
 * contract it writes the plain format, which every node reads; a few seconds of that cost only
 * the time order of those families.
 */
import type { Logger } from '../sdk/contracts.js';
import type { Store } from '../store/store.js';
import { timeOrderedFamiliesContract } from '../store/sql/contracts.js';
import type { FamilyFormat } from './grant-family.js';

export interface WatchedFamilyFormat extends FamilyFormat {
  /** Reads the database's answer the first time; rejects when the store cannot answer. */
  ready(): Promise<void>;
  /** Stops re-reading. */
  stop(): void;
}

/** Short, as the re-reading stops at the contract: the nodes switch soon after the operator's step. */
export const familyFormatInterval = 10_000;

export function watchFamilyFormat({ store, logger, intervalMs = familyFormatInterval }: { store: Store; logger: Logger; intervalMs?: number }): WatchedFamilyFormat {
  // Plain until `ready` has asked: every node reads it.
  let timeOrdered = false;
  let timer: NodeJS.Timeout | undefined;

  async function contracted(): Promise<boolean> {
    const status = await store.migrationStatus!();
    return status.contracts.some((c) => c.id === timeOrderedFamiliesContract.id && c.recordedAt !== undefined);
  }

  function stop(): void {
    if (timer !== undefined) clearInterval(timer);
    timer = undefined;
  }

  async function reread(): Promise<void> {
    try {
      if (!(await contracted())) return;
    } catch (err) {
      logger.warn({ err: (err as Error).message }, 'could not read whether the database is contracted; grant families stay in the plain format');
      return;
    }
    timeOrdered = true;
    stop();
    logger.info({ contract: timeOrderedFamiliesContract.id }, 'the database is contracted: new grant families are time-ordered');
  }

  return {
    get timeOrdered() {
      return timeOrdered;
    },
    async ready() {
      // A store without migrations (memory) is never shared with an older node.
      timeOrdered = store.migrationStatus === undefined || (await contracted());
      if (!timeOrdered) {
        timer = setInterval(() => void reread(), intervalMs);
        timer.unref();
      }
    },
    stop,
  };
}
