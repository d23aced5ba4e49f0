import { describe, expect, it } from 'vitest';
import { createTurnBatch } from '../../src/runtime/turn-batch.js';

describe('turn batch', () => {
  it('runs the jobs of one turn back to back, before any caller continues', async () => {
    const batch = createTurnBatch();
    const trace: string[] = [];
    const caller = async (name: string): Promise<void> => {
      const result = await batch.run(() => {
        trace.push(`run ${name}`);
        return name.toUpperCase();
      });
      trace.push(`continue ${name} with ${result}`);
    };
    const callers = [caller('a'), caller('b'), caller('c')];
    expect(trace).toEqual([]);
    await Promise.all(callers);
    expect(trace).toEqual(['run a', 'run b', 'run c', 'continue a with A', 'continue b with B', 'continue c with C']);
  });

  it('waits no longer than the current turn', async () => {
    const batch = createTurnBatch();
    let ran = false;
    const done = batch.run(() => (ran = true));
    // setImmediate callbacks run in order: one queued after the job's must find it done.
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(ran).toBe(true);
    await expect(done).resolves.toBe(true);
  });

  it('rejects only the caller whose job threw', async () => {
    const batch = createTurnBatch();
    const results = await Promise.allSettled([
      batch.run(() => 1),
      batch.run(() => {
        throw new Error('bad key');
      }),
      batch.run(() => 3),
    ]);
    expect(results).toEqual([
      { status: 'fulfilled', value: 1 },
      { status: 'rejected', reason: new Error('bad key') },
      { status: 'fulfilled', value: 3 },
    ]);
  });

  it('runs a job asked for by a continuation in a later batch', async () => {
    const batch = createTurnBatch();
    const trace: string[] = [];
    await Promise.all([
      batch.run(() => trace.push('first')).then(() => batch.run(() => trace.push('second, later'))),
      batch.run(() => trace.push('first, same turn')),
    ]);
    expect(trace).toEqual(['first', 'first, same turn', 'second, later']);
  });
});
