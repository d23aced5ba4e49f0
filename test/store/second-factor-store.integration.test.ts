/**
 * The second-factor store (issue 35) on every backend, SQLite and PostgreSQL through the same
 * migrations as the service: a pending secret is confirmed once, each later time step is
 * accepted once and only upward, a recovery code is spent once (also when two spend it at the
 * same moment), new codes replace the old, and removal takes one kind or all.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemorySecondFactors } from '../../src/store/memory-second-factors.js';
import type { SecondFactorStore } from '../../src/store/second-factor-records.js';
import { openPostgres } from '../../src/store/sql/postgres.js';
import { openSqlite } from '../../src/store/sql/sqlite.js';
import { createTestSchema, postgresSkipReason, postgresUrl } from '../support/pg.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-factors-store-'));
const closers: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const close of closers) await close();
  rmSync(dir, { recursive: true, force: true });
});

const pgSkip = await postgresSkipReason('the second-factor store on PostgreSQL');

const backends: Array<[string, () => Promise<SecondFactorStore>, boolean]> = [
  ['memory', async () => createMemorySecondFactors(), false],
  ['sqlite', async () => {
    const store = openSqlite(join(dir, 'svc.db'));
    await store.migrate();
    closers.push(() => store.close());
    return store.factors;
  }, false],
  ['postgres', async () => {
    const schema = await createTestSchema('factors');
    const store = openPostgres(postgresUrl, { schema: schema.name });
    await store.migrate();
    closers.push(async () => {
      await store.close();
      await schema.drop();
    });
    return store.factors;
  }, pgSkip !== undefined],
];

describe.each(backends)('second factors in %s', (_name, open, skip) => {
  it.skipIf(skip)('confirms once, accepts each later step once and only upward; spends a recovery code once; removes by kind', async () => {
    const factors = await open();
    const s = 'sub-1';
    await factors.putTotp(s, 'sealed-1', 10);
    expect(await factors.acceptTotpStep(s, 'sealed-1', 5, 11, false)).toBe(false);
    expect(await factors.acceptTotpStep(s, 'sealed-1', 5, 11, true)).toBe(true);
    expect(await factors.acceptTotpStep(s, 'sealed-1', 6, 12, true)).toBe(false);
    expect(await factors.acceptTotpStep(s, 'sealed-1', 5, 12, false)).toBe(false);
    expect(await factors.acceptTotpStep(s, 'other', 7, 12, false)).toBe(false);
    const both = await Promise.all([factors.acceptTotpStep(s, 'sealed-1', 7, 13, false), factors.acceptTotpStep(s, 'sealed-1', 7, 13, false)]);
    expect(both.filter(Boolean)).toHaveLength(1);
    expect((await factors.get(s)).totp).toEqual({ secret: 'sealed-1', createdAt: 10, confirmedAt: 11, lastStep: 7 });

    await factors.putRecoveryCodes(s, ['a', 'b'], 20);
    const spent = await Promise.all([factors.spendRecoveryCode(s, 'a', 21), factors.spendRecoveryCode(s, 'a', 21)]);
    expect(spent.filter(Boolean)).toHaveLength(1);
    expect(await factors.spendRecoveryCode('sub-2', 'b', 22)).toBe(false);
    await factors.putRecoveryCodes(s, ['c'], 30);
    expect(await factors.spendRecoveryCode(s, 'b', 31)).toBe(false);
    expect((await factors.get(s)).recoveryCodes).toEqual([{ hash: 'c', createdAt: 30, usedAt: undefined }]);

    // A new enrolment replaces the secret: pending again, no step remembered.
    await factors.putTotp(s, 'sealed-2', 40);
    expect((await factors.get(s)).totp).toEqual({ secret: 'sealed-2', createdAt: 40, confirmedAt: undefined, lastStep: undefined });
    expect(await factors.remove(s, 'recovery')).toBe(1);
    expect(await factors.remove(s)).toBe(1);
    expect(await factors.get(s)).toEqual({ totp: undefined, recoveryCodes: [], passkeys: [] });
  });

  it.skipIf(skip)('keeps passkeys: one per credential, the counter moved only from what was read, renamed, removed one by one or by kind', async () => {
    const factors = await open();
    const s = 'sub-pk';
    const passkey = { credentialId: 'cred-1', publicKey: 'pk-1', transports: ['internal'], name: 'Phone', backedUp: true, counter: 3, createdAt: 50 };
    await factors.addPasskey(s, passkey);
    await expect(factors.addPasskey(s, { ...passkey, name: 'Again' })).rejects.toMatchObject({ name: 'DuplicateKeyError' });
    await factors.addPasskey(s, { ...passkey, credentialId: 'cred-2', name: 'Laptop', backedUp: false, counter: 0 });
    const moved = await Promise.all([factors.usePasskey(s, 'cred-1', 3, 4, 60), factors.usePasskey(s, 'cred-1', 3, 4, 60)]);
    expect(moved.filter(Boolean)).toHaveLength(1);
    expect(await factors.usePasskey(s, 'cred-1', 3, 5, 61)).toBe(false);
    expect((await factors.get(s)).passkeys).toEqual([
      { ...passkey, counter: 4, lastUsedAt: 60 },
      { ...passkey, credentialId: 'cred-2', name: 'Laptop', backedUp: false, counter: 0, lastUsedAt: undefined },
    ]);
    expect(await factors.renamePasskey(s, 'cred-1', 'Work phone')).toBe(true);
    expect(await factors.renamePasskey(s, 'cred-9', 'Nothing')).toBe(false);
    expect(await factors.renamePasskey('sub-other', 'cred-1', 'Not yours')).toBe(false);
    expect((await factors.get(s)).passkeys[0]).toEqual({ ...passkey, name: 'Work phone', counter: 4, lastUsedAt: 60 });
    expect(await factors.removePasskey(s, 'cred-2')).toBe(true);
    expect(await factors.removePasskey(s, 'cred-2')).toBe(false);
    expect(await factors.remove(s, 'passkey')).toBe(1);
    expect((await factors.get(s)).passkeys).toEqual([]);
  });
});
