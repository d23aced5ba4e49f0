/** The store as a plugin sees it (src/plugin-host/plugin-store.ts): its own namespace, time-ordered keys included. */
import { describe, expect, it } from 'vitest';
import { pluginStore } from '../../src/plugin-host/plugin-store.js';
import { timeOrderedKey } from '../../src/sdk/store-keys.js';
import type { PluginRecord } from '../../src/sdk/contracts.js';
import { hashKey } from '../../src/store/hash-key.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import { openSqlite } from '../../src/store/sql/sqlite.js';

const now = Date.UTC(2027, 0, 15, 12);
const clock = { now: () => now };
const record = (key: string): PluginRecord => ({
  key, type: 'assertion_jti', clientId: 'app', subjectId: undefined, sessionId: undefined,
  createdAt: now, expiresAt: now + 60_000, consumedAt: undefined, data: '{}',
});

describe('pluginStore', () => {
  it("puts a time-ordered key's namespace after its time, where the store keeps the time unhashed", async () => {
    const store = createMemoryStore(clock);
    const key = timeOrderedKey(now + 300_000, 'jti:app:6d1f0c');
    await pluginStore(store, 'private-key-jwt').add(record(key));
    const inside = `${key.slice(0, 13)}plugin:private-key-jwt:jti:app:6d1f0c`;
    expect(await store.get(inside)).toMatchObject({ type: 'assertion_jti' });
    expect(hashKey(inside).slice(0, 12)).toBe((now + 300_000).toString(16).padStart(12, '0'));
  });

  it('gives every plugin its own records under one time-ordered key, and each its own key back', async () => {
    const store = createMemoryStore(clock);
    const mine = pluginStore(store, 'mine');
    const theirs = pluginStore(store, 'theirs');
    const key = timeOrderedKey(now, 'jti:app:same');
    await mine.add(record(key));
    expect(await theirs.get(key)).toBeUndefined();
    await theirs.add({ ...record(key), data: '{"theirs":true}' });
    expect(await mine.get(key)).toMatchObject({ key, data: '{}' });
    expect(await theirs.consume(key, now)).toMatchObject({ key, data: '{"theirs":true}' });
    await mine.remove(key);
    expect(await mine.get(key)).toBeUndefined();
    expect(await theirs.get(key)).toMatchObject({ key, consumedAt: now });
  });

  it('refuses a second record under the same time-ordered key on SQLite, where the key is stored as time and hash', async () => {
    const store = openSqlite(':memory:');
    await store.migrate();
    try {
      const plugin = pluginStore(store, 'private-key-jwt');
      const key = timeOrderedKey(now + 300_000, 'jti:app:once');
      await plugin.add(record(key));
      await expect(plugin.add(record(key))).rejects.toMatchObject({ name: 'DuplicateKeyError' });
      // The same jti at another time is another record.
      await plugin.add(record(timeOrderedKey(now + 100_000, 'jti:app:once')));
      expect(await plugin.get(key)).toMatchObject({ key, clientId: 'app' });
    } finally {
      await store.close();
    }
  });
});
