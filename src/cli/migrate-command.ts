/**
 * `svc migrate [status | up]`: the schema migrations of the store the config names. `status`
 * only reads; `up` applies the pending ones under the same lock a node takes when it migrates
 * at start-up (PostgreSQL: an advisory lock per schema; SQLite: BEGIN IMMEDIATE), so it is safe
 * while nodes start or run. Migrations are expand-only (docs/guides/operations.md, "Upgrades"):
 * nodes of the previous release keep running on the migrated schema.
 */
import { loadConfig } from '../config/load.js';
import { createStore } from '../store/create-store.js';
import type { MigrationStatus, Store } from '../store/store.js';
import { table } from './table.js';
import { CliError } from './user-facing-error.js';

function describe(status: MigrationStatus): string {
  const rows = [
    ['migration', 'state', 'applied'],
    ...status.applied.map((m) => [m.id, m.known ? 'applied' : 'applied (by a newer release)', new Date(m.appliedAt).toISOString()]),
    ...status.pending.map((id) => [id, 'pending', '-']),
  ];
  return table(rows);
}

async function statusOf(store: Store, spec: string): Promise<MigrationStatus> {
  if (!store.migrationStatus) throw new CliError(`the store "${spec}" keeps nothing between starts and has no schema to migrate; set "store" to sqlite:<path> or postgres://...`);
  return store.migrationStatus();
}

export async function migrateCommand(action: string | undefined, configPath: string | undefined): Promise<number> {
  if (action !== undefined && action !== 'status' && action !== 'up') {
    throw new CliError(`unknown migrate action "${action}": use "svc migrate status" or "svc migrate up".`);
  }
  const { config } = await loadConfig({ path: configPath });
  const store = await createStore(config.store, config.configDir);
  try {
    const before = await statusOf(store, config.store);
    if (action !== 'up') {
      process.stdout.write(describe(before));
      process.stdout.write(`${before.applied.length} applied, ${before.pending.length} pending\n`);
      return 0;
    }
    await store.migrate();
    const after = await statusOf(store, config.store);
    // Another node or command may have applied some meanwhile: report what is now there.
    const done = before.pending.filter((id) => !after.pending.includes(id));
    for (const id of done) process.stdout.write(`applied ${id}\n`);
    process.stdout.write(done.length === 0 ? 'the schema is up to date; nothing to apply\n' : `${done.length} applied; the schema is up to date\n`);
    return 0;
  } finally {
    await store.close();
  }
}
