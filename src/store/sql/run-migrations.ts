import type { Kysely } from 'kysely';
import type { MigrationStatus } from '../store.js';
import type { Database } from './schema.js';
import { migrations as allMigrations, type Migration } from './migrations.js';
import { contracts as allContracts, type Contract } from './contracts.js';

/**
 * Applies pending migrations inside `trx`, which the caller has made exclusive across
 * processes (advisory lock, `BEGIN IMMEDIATE`), so the check-then-apply below cannot race.
 * A database with no migration yet is new: no node of an older release has used it, so every
 * contract step is recorded with the schema.
 */
export async function runMigrations(
  trx: Kysely<Database>,
  now: number,
  migrations: readonly Migration[] = allMigrations,
  contracts: readonly Contract[] = allContracts,
): Promise<void> {
  await trx.schema
    .createTable('svc_schema_migrations')
    .ifNotExists()
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('applied_at', 'bigint', (c) => c.notNull())
    .execute();

  const applied = new Set(
    (await trx.selectFrom('svc_schema_migrations').select('id').execute()).map((row) => row.id),
  );
  for (const migration of migrations) {
    if (applied.has(migration.id)) continue;
    await migration.up(trx as unknown as Kysely<unknown>);
    await trx.insertInto('svc_schema_migrations').values({ id: migration.id, applied_at: now }).execute();
  }
  if (applied.size === 0) await recordContracts(trx, now, contracts);
}

/** Records every contract step not recorded yet (`svc migrate contract`), inside an exclusive `trx` as for `runMigrations`. */
export async function recordContracts(trx: Kysely<Database>, now: number, contracts: readonly Contract[] = allContracts): Promise<void> {
  const recorded = new Set((await trx.selectFrom('svc_schema_migrations').select('id').execute()).map((row) => row.id));
  for (const contract of contracts) {
    if (!recorded.has(contract.id)) await trx.insertInto('svc_schema_migrations').values({ id: contract.id, applied_at: now }).execute();
  }
}

/**
 * Reads the migration table without creating or changing anything; `tableExists` says whether
 * `svc_schema_migrations` is there at all (a database no node has started on yet).
 */
export async function readMigrationStatus(
  db: Kysely<Database>,
  tableExists: boolean,
  migrations: readonly Migration[] = allMigrations,
  contracts: readonly Contract[] = allContracts,
): Promise<MigrationStatus> {
  const rows = tableExists
    ? await db.selectFrom('svc_schema_migrations').select(['id', 'applied_at']).orderBy('applied_at').orderBy('id').execute()
    : [];
  const known = new Set(migrations.map((m) => m.id));
  const contractIds = new Set(contracts.map((c) => c.id));
  const applied = rows.filter((row) => !contractIds.has(row.id)).map((row) => ({ id: row.id, appliedAt: Number(row.applied_at), known: known.has(row.id) }));
  const appliedIds = new Set(applied.map((m) => m.id));
  const recorded = new Map(rows.map((row) => [row.id, Number(row.applied_at)]));
  return {
    applied,
    pending: migrations.filter((m) => !appliedIds.has(m.id)).map((m) => m.id),
    contracts: contracts.map((c) => ({ id: c.id, recordedAt: recorded.get(c.id) })),
  };
}
