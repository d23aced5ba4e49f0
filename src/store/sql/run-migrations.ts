import type { Kysely } from 'kysely';
import type { Database } from './schema.js';
import { migrations as allMigrations, type Migration } from './migrations.js';

/**
 * Applies pending migrations inside `trx`, which the caller has made exclusive across
 * processes (advisory lock, `BEGIN IMMEDIATE`), so the check-then-apply below cannot race.
 */
export async function runMigrations(
  trx: Kysely<Database>,
  now: number,
  migrations: readonly Migration[] = allMigrations,
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
}
