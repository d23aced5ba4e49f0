import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../../src/store/memory-store.js';
import { hashKey } from '../../src/store/hash-key.js';
import type { PersistedGrant } from '../../src/store/store.js';

const grant = (key: string, expiresAt: number): PersistedGrant => ({
  key,
  type: 'reference_token',
  clientId: 'c',
  subjectId: undefined,
  sessionId: undefined,
  createdAt: 0,
  expiresAt,
  consumedAt: undefined,
  data: '{}',
});

describe('createMemoryStore', () => {
  it('drops expired grants on its own about once a minute of its clock', async () => {
    let now = 0;
    const store = createMemoryStore({ now: () => now });
    await store.add(grant('short', 1000));
    await store.add(grant('long', 120_000));

    now = 59_000;
    await store.add(grant('third', 120_000));
    expect(await store.get('short')).toBeDefined();

    now = 61_000;
    await store.add(grant('fourth', 120_000));
    expect(await store.get('short')).toBeUndefined();
    expect(await store.get('long')).toBeDefined();
  });

  it('hands out copies, so a caller cannot change what is stored', async () => {
    const store = createMemoryStore();
    await store.add(grant('k', Number.MAX_SAFE_INTEGER));
    const read = await store.get('k');
    read!.data = 'tampered';

    expect((await store.get('k'))?.data).toBe('{}');
  });

  it('finds, lists and removes by session through its own records, which follow each record that comes or goes', async () => {
    let now = 0;
    const store = createMemoryStore({ now: () => now });
    const inSession = (key: string, sessionId: string | undefined, expiresAt = 10_000): PersistedGrant => ({ ...grant(key, expiresAt), type: 'refresh_token', sessionId, createdAt: now });
    await store.add(inSession('a', 's1'));
    await store.add(inSession('b', 's1', 500));
    await store.add(inSession('c', 's2'));
    await store.add(inSession('d', undefined));
    const keysOf = async (sessionId: string): Promise<string[]> => (await store.findAll({ sessionId }, now)).map((r) => r.key).sort();
    expect(await keysOf('s1')).toEqual([hashKey('a'), hashKey('b')].sort());

    expect(await store.removeStored(hashKey('a'))).toBe(true);
    expect(await keysOf('s1')).toEqual([hashKey('b')]);

    // `b` expired; the same key stored again for another session belongs to that one only.
    now = 1000;
    await store.add(inSession('b', 's2'));
    expect(await keysOf('s1')).toEqual([]);
    expect(await keysOf('s2')).toEqual([hashKey('b'), hashKey('c')].sort());
    expect((await store.listGrants({ sessionId: 's2', type: 'refresh_token' }, { now, limit: 10 })).map((r) => r.key)).toEqual([hashKey('b'), hashKey('c')].sort());

    expect(await store.removeAll({ sessionId: 's2', type: 'refresh_token' })).toBe(2);
    expect(await keysOf('s2')).toEqual([]);
    expect(await store.get('d')).toBeDefined();
    expect(await store.removeAll({ sessionId: 's2' })).toBe(0);
  });
});
