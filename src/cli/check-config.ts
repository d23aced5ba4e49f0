import { createApp } from '../app/create-app.js';
import { plainWarnings } from './plain-warnings.js';
import { BootError } from '../config/boot-error.js';
import { loadConfig } from '../config/load.js';
import { secretExpiryWarnings } from '../config/secret-expiry.js';
import { createMemoryStore } from '../store/memory-store.js';

/**
 * Validates the config and loads every plugin (against a throw-away store), then says
 * "config ok" or lists every problem, and warns about client secrets that have expired or soon
 * will. Exits 1 only for problems.
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
  for (const warning of secretExpiryWarnings(config, Date.now())) process.stderr.write(`svc: warning: ${warning}\n`);
  const count = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;
  process.stdout.write(`${filepath}: config ok (${count(config.clients.length, 'client')}, ${count(plugins, 'plugin')})\n`);
  return 0;
}
