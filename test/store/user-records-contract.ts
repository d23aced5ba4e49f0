/**
 * What every `UserRecordStore` does (issue 34): run over memory by the unit project
 * (`memory-user-records.test.ts`) and over SQLite and PostgreSQL by the integration project
 * (`user-records.integration.test.ts`).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DuplicateKeyError, type Store } from '../../src/store/store.js';
import type { NewUser } from '../../src/store/user-records.js';
import { T0, type Backend, type TestDatabase } from './backends.js';

const hash = '$scrypt$ln=1,r=8,p=1$c2FsdHNhbHRzYWx0c2FsdA$MDEyMzQ1Njc4OTAxMjM0NTY3ODkwMTIzNDU2Nzg5MDE';
const alice: NewUser = {
  subjectId: 'sub-alice', username: 'Alice', email: 'alice@example.com', emailVerified: true,
  claims: { name: 'Alice Smith', age: 42, admin: false }, disabled: false, passwordHash: hash, createdAt: T0,
};

export function userRecordsContract(backend: Backend): void {
  describe.skipIf(backend.skipReason !== undefined)(`User records: ${backend.name}`, () => {
    let database: TestDatabase;
    let store: Store;

    beforeEach(async () => {
      database = await backend.createDatabase();
      store = database.open();
      await store.migrate();
    });
    afterEach(() => database.drop());

    it('reads a user back by subject and, without regard to case, by username', async () => {
      await store.users.add(alice);
      const expected = { ...alice, updatedAt: T0, lastSignInAt: undefined, upstreamIdentities: [] };
      expect(await store.users.getBySubject('sub-alice')).toEqual(expected);
      expect(await store.users.getByUsername('alice')).toEqual(expected);
      expect(await store.users.getByUsername('ALICE')).toEqual(expected);
      expect(await store.users.getByUsername('Ａlice')).toEqual(expected);
      expect(await store.users.getByUsername('bob')).toBeUndefined();
      expect(await store.users.getBySubject('nobody')).toBeUndefined();
    });

    it('refuses a second user with the same subject id, or a username that differs only in case', async () => {
      await store.users.add(alice);
      await expect(store.users.add({ ...alice, username: 'other' })).rejects.toBeInstanceOf(DuplicateKeyError);
      await expect(store.users.add({ ...alice, subjectId: 'sub-2', username: 'ALICE' })).rejects.toBeInstanceOf(DuplicateKeyError);
      await store.users.add({ ...alice, subjectId: 'sub-bob', username: 'bob', email: undefined, emailVerified: false, passwordHash: undefined });
      expect((await store.users.list()).map((u) => u.username)).toEqual(['Alice', 'bob']);
    });

    it('updates the fields named, refusing a username another user holds', async () => {
      await store.users.add(alice);
      await store.users.add({ ...alice, subjectId: 'sub-bob', username: 'bob' });
      expect(await store.users.update('sub-alice', { username: 'alice.smith', email: null, claims: { name: 'A. Smith' }, disabled: true }, T0 + 5)).toBe(true);
      expect(await store.users.getBySubject('sub-alice')).toMatchObject({
        username: 'alice.smith', email: undefined, emailVerified: true, claims: { name: 'A. Smith' }, disabled: true, passwordHash: hash, updatedAt: T0 + 5,
      });
      expect(await store.users.getByUsername('Alice')).toBeUndefined();
      await expect(store.users.update('sub-alice', { username: 'BOB' }, T0 + 6)).rejects.toBeInstanceOf(DuplicateKeyError);
      // The user's own name in another case is a rename, not a clash.
      expect(await store.users.update('sub-alice', { username: 'Alice.Smith' }, T0 + 7)).toBe(true);
      expect(await store.users.update('nobody', { disabled: true }, T0)).toBe(false);
      expect(await store.users.update('sub-alice', { passwordHash: null }, T0 + 8)).toBe(true);
      expect((await store.users.getBySubject('sub-alice'))?.passwordHash).toBeUndefined();
    });

    it('records a sign-in, and replaces the hash only when it is still the one the sign-in checked', async () => {
      await store.users.add(alice);
      await store.users.signedIn('sub-alice', T0 + 10, { from: hash, to: 'new-hash' });
      expect(await store.users.getBySubject('sub-alice')).toMatchObject({ lastSignInAt: T0 + 10, passwordHash: 'new-hash' });
      await store.users.signedIn('sub-alice', T0 + 20, { from: hash, to: 'stale' });
      expect(await store.users.getBySubject('sub-alice')).toMatchObject({ lastSignInAt: T0 + 20, passwordHash: 'new-hash' });
    });

    it('links upstream identities to one user only, finds by them, unlinks, and forgets them with the user', async () => {
      await store.users.add(alice);
      await store.users.add({ ...alice, subjectId: 'sub-bob', username: 'bob' });
      const entra = { provider: 'entra', issuer: 'https://login.example/tenant/v2.0', subject: 'up-1', linkedAt: T0 + 1 };
      expect(await store.users.link('sub-alice', entra)).toBe(true);
      expect(await store.users.link('nobody', { ...entra, subject: 'up-9' })).toBe(false);
      await expect(store.users.link('sub-bob', { ...entra, linkedAt: T0 + 2 })).rejects.toBeInstanceOf(DuplicateKeyError);
      await store.users.link('sub-alice', { provider: 'github', issuer: 'https://github.com', subject: '583231', linkedAt: T0 + 3 });
      expect((await store.users.findByUpstream('entra', 'up-1'))?.subjectId).toBe('sub-alice');
      expect((await store.users.getBySubject('sub-alice'))?.upstreamIdentities.map((i) => i.provider)).toEqual(['entra', 'github']);
      expect((await store.users.list()).find((u) => u.subjectId === 'sub-alice')?.upstreamIdentities).toHaveLength(2);
      expect(await store.users.unlink('sub-alice', 'github')).toBe(1);
      expect(await store.users.unlink('sub-alice', 'github')).toBe(0);
      expect(await store.users.remove('sub-alice')).toBe(true);
      expect(await store.users.remove('sub-alice')).toBe(false);
      expect(await store.users.findByUpstream('entra', 'up-1')).toBeUndefined();
      // The identity is free again once its user is gone.
      expect(await store.users.link('sub-bob', entra)).toBe(true);
    });
  });
}
