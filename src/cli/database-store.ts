/**
 * The config's database for the commands that edit it (`svc clients`, `svc users`): what they
 * write must reach the running service, so the config's store has to be one it shares.
 */
import type { ResolvedConfig } from '../config/schema.js';
import { createStore } from '../store/create-store.js';
import type { Store } from '../store/store.js';
import { CliError } from './user-facing-error.js';

/** A memory store lives and dies with this process: refused before anything is built. */
export function refuseMemoryStore(config: ResolvedConfig): void {
  if (config.store === 'memory') {
    throw new CliError('the config\'s store is "memory": nothing written here would reach the service. Use "sqlite:<path>" or "postgres://...".');
  }
}

/** Opens the store with its schema up to date; closed again when the migration fails. */
export async function openMigratedStore(config: ResolvedConfig): Promise<Store> {
  const store = await createStore(config.store, config.configDir);
  try {
    await store.migrate();
  } catch (err) {
    await store.close().catch(() => undefined);
    throw err;
  }
  return store;
}
