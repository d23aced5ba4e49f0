/**
 * `svc migrate [status | up | contract]`: the schema migrations of the store the config names.
 * `status` only reads; `up` applies the pending ones under the same lock a node takes when it
 * migrates at start-up (PostgreSQL: an advisory lock per schema; SQLite: BEGIN IMMEDIATE), so it
 * is safe while nodes start or run. Migrations are expand-only (docs/guides/operations.md,
 * "Upgrades"): nodes of the previous release keep running on the migrated schema. `contract`
 * records the contract steps (src/store/sql/contracts.ts), after which the nodes write what the
 * previous release cannot read: the operator runs it once every node runs this release.
 */
import { loadConfig } from '../config/load.js';
import { createStore } from '../store/create-store.js';
import type { MigrationStatus, Store } from '../store/store.js';
import { contracts } from '../store/sql/contracts.js';
import { table } from './table.js';
import { CliError } from './user-facing-error.js';

function describe(status: MigrationStatus): string {
  const rows = [
    ['migration', 'state', 'applied'],
    ...status.applied.map((m) => [m.id, m.known ? 'applied' : 'applied (by a newer release)', new Date(m.appliedAt).toISOString()]),
    ...status.pending.map((id) => [id, 'pending', '-']),
    ...status.contracts.map((c) => [c.id, c.recordedAt === undefined ? 'not contracted' : 'contracted', c.recordedAt === undefined ? '-' : new Date(c.recordedAt).toISOString()]),
  ];
  return table(rows);
}

const notContracted = (status: MigrationStatus) => status.contracts.filter((c) => c.recordedAt === undefined).map((c) => c.id);

/** Once every node runs this release (never before: the previous release cannot read what it then writes). */
async function contract(store: Store, before: MigrationStatus): Promise<number> {
  if (before.pending.length > 0) {
    throw new CliError(
      `${before.pending.length} migration(s) of this release are pending, so no node of this release has started on this database yet: ` +
        'upgrade every node (or run "svc migrate up"), then contract.',
    );
  }
  if (notContracted(before).length === 0) {
    process.stdout.write('the database is contracted; nothing to record\n');
    return 0;
  }
  await store.contract!();
  const after = await store.migrationStatus!();
  const done = notContracted(before).filter((id) => !notContracted(after).includes(id));
  for (const id of done) process.stdout.write(`contracted ${id}: nodes write ${contracts.find((c) => c.id === id)!.effect}\n`);
  process.stdout.write('every node of this release switches within 10 seconds; a node of the previous release must not run on this database again\n');
  return 0;
}

async function statusOf(store: Store, spec: string): Promise<MigrationStatus> {
  if (!store.migrationStatus) throw new CliError(`the store "${spec}" keeps nothing between starts and has no schema to migrate; set "store" to sqlite:<path> or postgres://...`);
  return store.migrationStatus();
}

export async function migrateCommand(action: string | undefined, configPath: string | undefined): Promise<number> {
  if (action !== undefined && action !== 'status' && action !== 'up' && action !== 'contract') {
    throw new CliError(`unknown migrate action "${action}": use "svc migrate status", "svc migrate up" or "svc migrate contract".`);
  }
  const { config } = await loadConfig({ path: configPath });
  const store = await createStore(config.store, config.configDir);
  try {
    const before = await statusOf(store, config.store);
    if (action === 'contract') return await contract(store, before);
    if (action !== 'up') {
      process.stdout.write(describe(before));
      process.stdout.write(`${before.applied.length} applied, ${before.pending.length} pending\n`);
      if (notContracted(before).length > 0) process.stdout.write('not contracted: once every node runs this release, run "svc migrate contract"\n');
      return 0;
    }
    await store.migrate();
    const after = await statusOf(store, config.store);
    // Another node or command may have applied some meanwhile: report what is now there.
    const done = before.pending.filter((id) => !after.pending.includes(id));
    for (const id of done) process.stdout.write(`applied ${id}\n`);
    process.stdout.write(done.length === 0 ? 'the schema is up to date; nothing to apply\n' : `${done.length} applied; the schema is up to date\n`);
    // A new database is contracted with its schema (`runMigrations`): no older node has used it.
    const contracted = notContracted(before).filter((id) => !notContracted(after).includes(id));
    if (contracted.length > 0) process.stdout.write(`a new database, contracted at once: ${contracted.join(', ')}\n`);
    return 0;
  } finally {
    await store.close();
  }
}
