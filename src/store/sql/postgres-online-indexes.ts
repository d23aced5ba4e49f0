import type pg from 'pg';
import { migrations as allMigrations, type Migration } from './migrations.js';

/**
 * Builds the indexes of pending migrations online, before the migrations run (issue 39: a
 * migration that would take long on a big table runs online). `create index concurrently`
 * cannot run in a transaction and, on a large `persisted_grants`, outlasts the pool's 5-second
 * statement timeout; it does not block writes, so every node keeps serving while it builds. The
 * migration's own `create index if not exists` then finds the index and is done at once.
 *
 * One node at a time (the session advisory lock `migrate`'s transaction takes as a transaction
 * lock), on a connection of its own with no timeouts. A build that failed half-way leaves an
 * invalid index behind; it is dropped and built again.
 */
export async function buildOnlineIndexes(pool: pg.Pool, migrations: readonly Migration[] = allMigrations): Promise<void> {
  const online = migrations.filter((m) => m.onlineIndex !== undefined);
  if (online.length === 0) return;
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('set statement_timeout = 0');
    await client.query(`select pg_advisory_lock(hashtext('svc-token-service:migrate'), hashtext(coalesce(current_schema(), '')))`);
    try {
      const tables = await client.query<{ present: boolean }>(`select to_regclass('svc_schema_migrations') is not null as present`);
      const applied = new Set(
        tables.rows[0]?.present ? (await client.query<{ id: string }>('select id from svc_schema_migrations')).rows.map((r) => r.id) : [],
      );
      // A new database makes its tables in the migration transaction, on an empty table: nothing to build ahead.
      if (applied.size === 0) return;
      for (const { id, onlineIndex } of online) {
        if (applied.has(id)) continue;
        const { name, definition } = onlineIndex!;
        const found = await client.query<{ valid: boolean }>(
          'select i.indisvalid as valid from pg_index i join pg_class c on c.oid = i.indexrelid where c.oid = to_regclass($1)',
          [name],
        );
        if (found.rows[0]?.valid === true) continue;
        if (found.rows.length > 0) await client.query({ text: `drop index concurrently if exists ${name}`, query_timeout: noTimeout } as pg.QueryConfig);
        await client.query({ text: `create index concurrently if not exists ${name} ${definition}`, query_timeout: noTimeout } as pg.QueryConfig);
      }
    } finally {
      await client.query(`select pg_advisory_unlock(hashtext('svc-token-service:migrate'), hashtext(coalesce(current_schema(), '')))`);
      await client.query('reset statement_timeout');
    }
  } catch (error) {
    broken = error as Error;
    throw error;
  } finally {
    // A connection whose statement failed mid-way may hold the lock or the setting: not reused.
    client.release(broken);
  }
}

/** node-postgres's own time-out per query (the pool's is 5 s): a day, for an index build. */
const noTimeout = 24 * 60 * 60 * 1000;
