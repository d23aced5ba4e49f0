/**
 * Which contract steps a node sees (issues 39, 40): none until the database has recorded them,
 * seen at start-up or by the re-read every 10 seconds, which stops once every step is seen; a
 * memory store has them all at once. The family format a node writes follows the first step.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { familyFormatOf } from '../../src/oauth/grant-family.js';
import type { Logger } from '../../src/sdk/contracts.js';
import { contracts, sessionCodeRowsContract, timeOrderedFamiliesContract } from '../../src/store/sql/contracts.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import type { MigrationStatus, Store } from '../../src/store/store.js';
import { contractsInterval, watchContracts } from '../../src/store/watched-contracts.js';

function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const log = (level: string) => (_obj: object, msg?: string) => void lines.push(`${level} ${msg ?? ''}`);
  return { lines, debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') } as unknown as Logger & { lines: string[] };
}

/** A SQL store's status answers: `recorded` the contract ids the database has, `failing` makes the read throw. */
function sqlStore(state: { recorded: string[]; failing?: boolean; reads: number }): Store {
  const status = (): MigrationStatus => ({
    applied: [], pending: [], contracts: contracts.map((c) => ({ id: c.id, recordedAt: state.recorded.includes(c.id) ? 1 : undefined })),
  });
  return {
    migrationStatus: async () => {
      state.reads++;
      if (state.failing) throw new Error('connection refused');
      return status();
    },
  } as Partial<Store> as Store;
}

const every = contracts.map((c) => c.id);

describe('the contract steps a node sees', () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it('none until ready; every step at once on a contracted database, and no re-reading', async () => {
    const state = { recorded: every, reads: 0 };
    const watched = watchContracts({ store: sqlStore(state), logger: recordingLogger() });
    const format = familyFormatOf(watched);
    expect(format.timeOrdered).toBe(false);
    expect(watched.recorded(sessionCodeRowsContract)).toBe(false);
    await watched.ready();
    expect(format.timeOrdered).toBe(true);
    expect(watched.recorded(sessionCodeRowsContract)).toBe(true);
    await vi.advanceTimersByTimeAsync(contractsInterval * 3);
    expect(state.reads).toBe(1);
  });

  it('a memory store: every step, nothing read', async () => {
    const watched = watchContracts({ store: createMemoryStore(), logger: recordingLogger() });
    await watched.ready();
    expect(familyFormatOf(watched).timeOrdered).toBe(true);
    expect(watched.recorded(sessionCodeRowsContract)).toBe(true);
  });

  it('before the contract: re-read on the interval until every step is seen, each one logged when it is, then never again', async () => {
    const state = { recorded: [] as string[], failing: false, reads: 0 };
    const logger = recordingLogger();
    const watched = watchContracts({ store: sqlStore(state), logger });
    const format = familyFormatOf(watched);
    await watched.ready();
    expect(format.timeOrdered).toBe(false);
    await vi.advanceTimersByTimeAsync(contractsInterval);
    expect(state.reads).toBe(2);
    expect(format.timeOrdered).toBe(false);

    // A failed read keeps what the previous release reads and says so.
    state.failing = true;
    await vi.advanceTimersByTimeAsync(contractsInterval);
    expect(format.timeOrdered).toBe(false);
    expect(logger.lines).toContain('warn could not read whether the database is contracted; this node keeps writing what the previous release reads');

    // A database contracted by the release before this one has the first step only.
    state.failing = false;
    state.recorded = [timeOrderedFamiliesContract.id];
    await vi.advanceTimersByTimeAsync(contractsInterval);
    expect(format.timeOrdered).toBe(true);
    expect(watched.recorded(sessionCodeRowsContract)).toBe(false);
    expect(logger.lines).toContain(`info the database is contracted: ${timeOrderedFamiliesContract.effect}`);

    state.recorded = every;
    await vi.advanceTimersByTimeAsync(contractsInterval);
    expect(watched.recorded(sessionCodeRowsContract)).toBe(true);
    expect(logger.lines).toContain(`info the database is contracted: ${sessionCodeRowsContract.effect}`);
    expect(logger.lines.filter((line) => line.startsWith('info the database is contracted'))).toHaveLength(2);
    const reads = state.reads;
    await vi.advanceTimersByTimeAsync(contractsInterval * 3);
    expect(state.reads).toBe(reads);
  });

  it('stop ends the re-reading', async () => {
    const state = { recorded: [] as string[], reads: 0 };
    const watched = watchContracts({ store: sqlStore(state), logger: recordingLogger() });
    await watched.ready();
    watched.stop();
    await vi.advanceTimersByTimeAsync(contractsInterval * 3);
    expect(state.reads).toBe(1);
  });
});
