import { createApp } from '../app/create-app.js';
import { loadConfig } from '../config/load.js';
import { createMemoryStore } from '../store/memory-store.js';

/** Validates the config and loads every plugin (against a throw-away store), then exits. */
export async function checkConfigCommand(configPath: string | undefined): Promise<number> {
  const { config, filepath } = await loadConfig({ path: configPath });
  const app = await createApp({ ...config, logLevel: 'warn' }, { store: createMemoryStore() });
  await app.close();
  process.stdout.write(`${filepath}: ok (${config.clients.length} clients, ${app.registry.plugins.length} plugins)\n`);
  return 0;
}
