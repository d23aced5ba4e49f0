/**
 * `Store.migrationStatus` (behind `svc migrate status`) reads without creating anything, on
 * SQLite and on a fresh PostgreSQL schema (where the migration table is looked up on the
 * schema's search_path, not in another schema of the same database). A new database is
 * contracted with its schema; one the previous release made is contracted only by `contract`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { openPostgres } from '../../src/store/sql/postgres.js';
import { openSqlite } from '../../src/store/sql/sqlite.js';
import { migrations } from '../../src/store/sql/migrations.js';
import { contracts } from '../../src/store/sql/contracts.js';
import type { Store } from '../../src/store/store.js';
import { createTestSchema, postgresSkipReason, postgresUrl, type TestSchema } from '../support/pg.js';

const ids = migrations.map((m) => m.id);
const contractIds = contracts.map((c) => c.id);

async function statusContract(store: Store, tables: () => Promise<string[]>, forgetContracts: () => Promise<void>): Promise<void> {
  expect(await store.migrationStatus!()).toEqual({ applied: [], pending: ids, contracts: contractIds.map((id) => ({ id, recordedAt: undefined })) });
  expect(await tables()).toEqual([]);

  const before = Date.now();
  await store.migrate();
  const status = await store.migrationStatus!();
  expect(status.pending).toEqual([]);
  expect(status.applied.map((m) => m.id)).toEqual(ids);
  for (const m of status.applied) {
    expect(m.known).toBe(true);
    expect(m.appliedAt).toBeGreaterThanOrEqual(before - 1000);
  }
  // No node of an older release has used a new database: it is contracted at once.
  expect(status.contracts).toEqual(contractIds.map((id) => ({ id, recordedAt: expect.any(Number) })));

  // A database the previous release made has every migration after `migrate`, and no contract.
  await forgetContracts();
  await store.migrate();
  expect((await store.migrationStatus!()).contracts).toEqual(contractIds.map((id) => ({ id, recordedAt: undefined })));
  await store.contract!();
  const contracted = await store.migrationStatus!();
  expect(contracted.contracts).toEqual(contractIds.map((id) => ({ id, recordedAt: expect.any(Number) })));
  expect(contracted.applied.map((m) => m.id)).toEqual(ids);
  await store.contract!();
  expect(await store.migrationStatus!()).toEqual(contracted);
}

describe('migration status on SQLite', () => {
  it('lists every migration as pending, creates nothing, then lists them applied after migrate', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-migration-status-'));
    const file = join(dir, 'svc.db');
    const store = openSqlite(file);
    const tables = async () => {
      const db = new BetterSqlite3(file, { readonly: true });
      try {
        return (db.prepare("select name from sqlite_master where type = 'table'").all() as Array<{ name: string }>).map((t) => t.name);
      } finally {
        db.close();
      }
    };
    const forgetContracts = async () => {
      const db = new BetterSqlite3(file);
      try {
        for (const id of contractIds) db.prepare('delete from svc_schema_migrations where id = ?').run(id);
      } finally {
        db.close();
      }
    };
    try {
      await statusContract(store, tables, forgetContracts);
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

const skip = await postgresSkipReason('migration status on PostgreSQL');

describe.skipIf(skip)('migration status on PostgreSQL', () => {
  let schema: TestSchema;
  let store: Store;
  beforeAll(async () => {
    schema = await createTestSchema('migration_status');
    store = openPostgres(postgresUrl, { schema: schema.name });
  });
  afterAll(async () => {
    await store?.close();
    await schema?.drop();
  });

  it('lists every migration as pending in a fresh schema, creates nothing, then lists them applied after migrate', async () => {
    const tables = async () =>
      (await schema.query<{ table_name: string }>('select table_name from information_schema.tables where table_schema = $1', [schema.name])).map((t) => t.table_name);
    const forgetContracts = async () => {
      await schema.query(`delete from ${schema.name}.svc_schema_migrations where id = any($1)`, [contractIds]);
    };
    await statusContract(store, tables, forgetContracts);
  });
});
