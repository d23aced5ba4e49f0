/**
 * Which family format a node writes (issue 40): plain until the database is contracted, seen at
 * start-up or by the re-read every 10 seconds, which then stops; a memory store at once.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { familyFormatInterval, watchFamilyFormat } from '../../src/oauth/family-format.js';
import type { Logger } from '../../src/sdk/contracts.js';
import { timeOrderedFamiliesContract } from '../../src/store/sql/contracts.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import type { MigrationStatus, Store } from '../../src/store/store.js';

function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const log = (level: string) => (_obj: object, msg?: string) => void lines.push(`${level} ${msg ?? ''}`);
  return { lines, debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') } as unknown as Logger & { lines: string[] };
}

/** A SQL store's status answers: `contracted` decides the marker, `failing` makes the read throw. */
function sqlStore(state: { contracted: boolean; failing?: boolean; reads: number }): Store {
  const status = (): MigrationStatus => ({
    applied: [], pending: [], contracts: [{ id: timeOrderedFamiliesContract.id, recordedAt: state.contracted ? 1 : undefined }],
  });
  return {
    migrationStatus: async () => {
      state.reads++;
      if (state.failing) throw new Error('connection refused');
      return status();
    },
  } as Partial<Store> as Store;
}

describe('the family format a node writes', () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it('plain until ready; time-ordered at once on a contracted database, and no re-reading', async () => {
    const state = { contracted: true, reads: 0 };
    const format = watchFamilyFormat({ store: sqlStore(state), logger: recordingLogger() });
    expect(format.timeOrdered).toBe(false);
    await format.ready();
    expect(format.timeOrdered).toBe(true);
    await vi.advanceTimersByTimeAsync(familyFormatInterval * 3);
    expect(state.reads).toBe(1);
  });

  it('a memory store: time-ordered, nothing read', async () => {
    const format = watchFamilyFormat({ store: createMemoryStore(), logger: recordingLogger() });
    await format.ready();
    expect(format.timeOrdered).toBe(true);
  });

  it('before the contract: plain, re-read on the interval until the contract is seen, then never again', async () => {
    const state = { contracted: false, failing: false, reads: 0 };
    const logger = recordingLogger();
    const format = watchFamilyFormat({ store: sqlStore(state), logger });
    await format.ready();
    expect(format.timeOrdered).toBe(false);
    await vi.advanceTimersByTimeAsync(familyFormatInterval);
    expect(state.reads).toBe(2);
    expect(format.timeOrdered).toBe(false);

    // A failed read keeps the plain format and says so.
    state.failing = true;
    await vi.advanceTimersByTimeAsync(familyFormatInterval);
    expect(format.timeOrdered).toBe(false);
    expect(logger.lines).toContain('warn could not read whether the database is contracted; grant families stay in the plain format');

    state.failing = false;
    state.contracted = true;
    await vi.advanceTimersByTimeAsync(familyFormatInterval);
    expect(format.timeOrdered).toBe(true);
    expect(logger.lines).toContain('info the database is contracted: new grant families are time-ordered');
    const reads = state.reads;
    await vi.advanceTimersByTimeAsync(familyFormatInterval * 3);
    expect(state.reads).toBe(reads);
  });

  it('stop ends the re-reading', async () => {
    const state = { contracted: false, reads: 0 };
    const format = watchFamilyFormat({ store: sqlStore(state), logger: recordingLogger() });
    await format.ready();
    format.stop();
    await vi.advanceTimersByTimeAsync(familyFormatInterval * 3);
    expect(state.reads).toBe(1);
  });
});
