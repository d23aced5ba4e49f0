/** The client record store (issue 19) behaves the same on every backend: memory, SQLite, PostgreSQL. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StoredSecret } from '../../src/store/client-records.js';
import { DuplicateKeyError, type Store } from '../../src/store/store.js';
import { T0, backends, type TestDatabase } from './backends.js';

const secret = (id: string, overrides: Partial<StoredSecret> = {}): StoredSecret => ({
  id, type: 'SharedSecret', value: 'K7gNU3sdo+OL0wNhqoVWhr3g6s1xYv72ol/pe/Unols=', description: undefined, createdAt: T0, expiresAt: undefined, ...overrides,
});
const definition = { allowedGrantTypes: ['client_credentials'], allowedScopes: ['api1.read'] };

for (const backend of backends) {
  describe.skipIf(backend.skipReason !== undefined)(`Client records: ${backend.name}`, () => {
    let database: TestDatabase;
    let store: Store;

    beforeEach(async () => {
      database = await backend.createDatabase();
      store = database.open();
      await store.migrate();
    });
    afterEach(() => database.drop());

    it('reads back a record with its secrets, and moves the version on each change', async () => {
      const records = store.clientRecords;
      const v0 = await records.version();
      await records.add({ kind: 'client', id: 'm2m', definition, disabled: false, createdAt: T0, secrets: [secret('s1', { description: 'first', expiresAt: 2 ** 50 })] });
      const v1 = await records.version();
      expect(v1).toBeGreaterThan(v0);
      expect(await records.get('client', 'm2m')).toEqual({
        kind: 'client', id: 'm2m', definition, disabled: false, createdAt: T0, updatedAt: T0, lastUsedAt: undefined,
        secrets: [secret('s1', { description: 'first', expiresAt: 2 ** 50 })],
      });
      // Kinds are separate namespaces.
      expect(await records.get('apiResource', 'm2m')).toBeUndefined();

      expect(await records.update('client', 'm2m', { disabled: true }, T0 + 1)).toBe(true);
      const v2 = await records.version();
      expect(v2).toBeGreaterThan(v1);
      expect(await records.get('client', 'm2m')).toMatchObject({ disabled: true, updatedAt: T0 + 1, definition });
      expect(await records.update('client', 'nobody', { disabled: true }, T0)).toBe(false);
      expect(await records.version()).toBe(v2);
    });

    it('refuses a second record with the same id', async () => {
      const records = store.clientRecords;
      await records.add({ kind: 'client', id: 'm2m', definition, disabled: false, createdAt: T0, secrets: [] });
      await expect(records.add({ kind: 'client', id: 'm2m', definition, disabled: false, createdAt: T0, secrets: [] })).rejects.toBeInstanceOf(DuplicateKeyError);
      await records.add({ kind: 'apiResource', id: 'm2m', definition: { scopes: ['api1.read'] }, disabled: false, createdAt: T0, secrets: [] });
      expect((await records.list()).map((r) => `${r.kind}:${r.id}`)).toEqual(['apiResource:m2m', 'client:m2m']);
      expect((await records.list('client')).map((r) => r.id)).toEqual(['m2m']);
    });

    it('adds, expires and removes secrets by id', async () => {
      const records = store.clientRecords;
      await records.add({ kind: 'client', id: 'm2m', definition, disabled: false, createdAt: T0, secrets: [secret('s1')] });
      expect(await records.addSecret('client', 'm2m', secret('s2', { createdAt: T0 + 5 }))).toBe(true);
      expect(await records.addSecret('client', 'nobody', secret('s3'))).toBe(false);
      expect(await records.expireSecret('client', 'm2m', 's1', T0 + 100)).toBe(true);
      expect(await records.expireSecret('client', 'm2m', 'nope', T0 + 100)).toBe(false);
      expect((await records.get('client', 'm2m'))!.secrets.map((s) => [s.id, s.expiresAt])).toEqual([['s1', T0 + 100], ['s2', undefined]]);
      expect(await records.removeSecret('client', 'm2m', 's1')).toBe(true);
      expect(await records.removeSecret('client', 'm2m', 's1')).toBe(false);
      expect((await records.get('client', 'm2m'))!.secrets.map((s) => s.id)).toEqual(['s2']);
    });

    it('records the last use without moving the version, and removes a record with its secrets', async () => {
      const records = store.clientRecords;
      await records.add({ kind: 'client', id: 'm2m', definition, disabled: false, createdAt: T0, secrets: [secret('s1')] });
      const v = await records.version();
      await records.touch('client', 'm2m', T0 + 60_000);
      expect(await records.version()).toBe(v);
      expect((await records.get('client', 'm2m'))!.lastUsedAt).toBe(T0 + 60_000);
      expect(await records.remove('client', 'm2m')).toBe(true);
      expect(await records.remove('client', 'm2m')).toBe(false);
      expect(await records.get('client', 'm2m')).toBeUndefined();
      // Re-adding the id does not bring the old secrets back.
      await records.add({ kind: 'client', id: 'm2m', definition, disabled: false, createdAt: T0, secrets: [] });
      expect((await records.get('client', 'm2m'))!.secrets).toEqual([]);
    });

    it('sees the changes another node made on the same database', async () => {
      const other = database.open();
      await other.clientRecords.add({ kind: 'client', id: 'm2m', definition, disabled: false, createdAt: T0, secrets: [secret('s1')] });
      expect((await store.clientRecords.get('client', 'm2m'))?.id).toBe('m2m');
      expect(await store.clientRecords.version()).toBe(await other.clientRecords.version());
    });
  });
}
