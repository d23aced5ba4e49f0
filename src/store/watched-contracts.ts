/**
 * Which contract steps the database has recorded (`svc migrate contract`,
 * src/store/sql/contracts.ts), so a node writes what the previous release reads until no node of
 * it is left: plain grant-family ids, sign-in sessions that list their codes' families (issues
 * 39, 40).
 *
 * Read once at start-up and then every `intervalMs` until every step is seen (a step is never
 * undone, so the timer then stops): a request only looks a step up in a set. Until a node has
 * seen a step it writes the previous release's form, which every node reads; a few seconds of
 * that cost nothing but the step's gain.
 */
import type { Logger } from '../sdk/contracts.js';
import type { Store } from './store.js';
import { contracts as allContracts, type Contract } from './sql/contracts.js';

export interface ContractState {
  /** Whether the step is recorded; a plain set look-up, read per request. */
  recorded(contract: Contract): boolean;
}

export interface WatchedContracts extends ContractState {
  /** Reads the database's answer the first time; rejects when the store cannot answer. */
  ready(): Promise<void>;
  /** Stops re-reading. */
  stop(): void;
}

/** Every step recorded: a memory store's, and every unit test's (no node of an older release shares them). */
export const everyContractRecorded: ContractState = Object.freeze({ recorded: () => true });

/** Short, as the re-reading stops once every step is seen: the nodes switch soon after the operator's step. */
export const contractsInterval = 10_000;

export function watchContracts({ store, logger, intervalMs = contractsInterval, contracts = allContracts }: {
  store: Store; logger: Logger; intervalMs?: number; contracts?: readonly Contract[];
}): WatchedContracts {
  // None until `ready` has asked: every node reads what is written before a step.
  const seen = new Set<string>();
  let all = false;
  let timer: NodeJS.Timeout | undefined;

  function stop(): void {
    if (timer !== undefined) clearInterval(timer);
    timer = undefined;
  }

  /** Notes the steps recorded since the last read; `announce` logs each one new to a running node. */
  async function read(announce: boolean): Promise<void> {
    const status = await store.migrationStatus!();
    for (const contract of contracts) {
      if (seen.has(contract.id) || !status.contracts.some((c) => c.id === contract.id && c.recordedAt !== undefined)) continue;
      seen.add(contract.id);
      if (announce) logger.info({ contract: contract.id }, `the database is contracted: ${contract.effect}`);
    }
    all = contracts.every((c) => seen.has(c.id));
    if (all) stop();
  }

  async function reread(): Promise<void> {
    try {
      await read(true);
    } catch (err) {
      logger.warn({ err: (err as Error).message }, 'could not read whether the database is contracted; this node keeps writing what the previous release reads');
    }
  }

  return {
    recorded: (contract) => all || seen.has(contract.id),
    async ready() {
      // A store without migrations (memory) is never shared with an older node.
      if (store.migrationStatus === undefined) {
        all = true;
        return;
      }
      await read(false);
      if (!all) {
        timer = setInterval(() => void reread(), intervalMs);
        timer.unref();
      }
    },
    stop,
  };
}
