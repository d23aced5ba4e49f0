import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../../src/store/memory-store.js';
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
});
