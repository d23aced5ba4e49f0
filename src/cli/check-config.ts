import { createApp } from '../app/create-app.js';
import { plainWarnings } from './plain-warnings.js';
import { BootError } from '../config/boot-error.js';
import { loadConfig } from '../config/load.js';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { expiryWarning, secretExpiryWarnings } from '../config/secret-expiry.js';
import type { ResolvedConfig } from '../config/schema.js';
import { createStore } from '../store/create-store.js';
import type { StoredRecord } from '../store/client-records.js';
import { describeFailure } from './user-facing-error.js';
import { createMemoryStore } from '../store/memory-store.js';

/**
 * Validates the config and loads every plugin (against a throw-away store), then says
 * "config ok" or lists every problem, and warns about client secrets that have expired or soon
 * will, in the config and among the clients kept in the store (issue 39: an expired store
 * client used to pass unseen). Exits 1 only for problems.
 */
export async function checkConfigCommand(configPath: string | undefined): Promise<number> {
  let loaded;
  let plugins: number;
  try {
    loaded = await loadConfig({ path: configPath });
    const app = await createApp({ ...loaded.config, logLevel: 'warn' }, { store: createMemoryStore(), logDestination: plainWarnings() });
    await app.close();
    plugins = app.registry.plugins.length;
  } catch (err) {
    if (!(err instanceof BootError)) throw err;
    const where = loaded?.filepath ?? configPath ?? 'the config';
    const count = err.problems.length;
    process.stderr.write(`svc: ${where}: ${count} problem${count === 1 ? '' : 's'} [${err.code}]\n  ${err.problems.join('\n  ')}\n`);
    return 1;
  }
  const { config, filepath } = loaded;
  const now = Date.now();
  const stored = await storedClients(config);
  const warnings = [...secretExpiryWarnings(config, now), ...stored.warnings];
  for (const r of stored.records) {
    if (r.kind === 'client' && !r.disabled) {
      const warning = expiryWarning(`store client "${r.id}"`, r.secrets, now);
      if (warning !== undefined) warnings.push(warning);
    }
  }
  for (const warning of warnings) process.stderr.write(`svc: warning: ${warning}\n`);
  const count = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;
  const inStore = stored.records.filter((r) => r.kind === 'client').length;
  const clients = inStore === 0 ? count(config.clients.length, 'client') : `${count(config.clients.length, 'client')} in the config, ${inStore} in the store`;
  process.stdout.write(`${filepath}: config ok (${clients}, ${count(plugins, 'plugin')})\n`);
  return 0;
}

/**
 * The clients `svc clients add` keeps in the configured store, read without changing it: a
 * SQLite file that does not exist yet is not created, and a store that cannot be read is a
 * warning (the config itself is fine).
 */
async function storedClients(config: ResolvedConfig): Promise<{ records: StoredRecord[]; warnings: string[] }> {
  if (config.store === 'memory' || config.clientStores.database === false) return { records: [], warnings: [] };
  const sqlite = /^sqlite:(.+)$/.exec(config.store)?.[1];
  if (sqlite !== undefined && (sqlite === ':memory:' || !existsSync(resolve(config.configDir, sqlite)))) return { records: [], warnings: [] };
  let store;
  try {
    store = await createStore(config.store, config.configDir);
    return { records: await store.clientRecords.list('client'), warnings: [] };
  } catch (err) {
    return { records: [], warnings: [`the clients kept in the store were not checked: ${describeFailure(err, undefined)}`] };
  } finally {
    await store?.close().catch(() => undefined);
  }
}
