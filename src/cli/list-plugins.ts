import { createApp } from '../app/create-app.js';
import { plainWarnings } from './plain-warnings.js';
import { loadConfig } from '../config/load.js';
import { createMemoryStore } from '../store/memory-store.js';

/** Prints each registered plugin with what it provides. */
export async function listPlugins(configPath: string | undefined): Promise<number> {
  const { config } = await loadConfig({ path: configPath });
  const app = await createApp({ ...config, logLevel: 'warn' }, { store: createMemoryStore(), logDestination: plainWarnings() });
  await app.close();
  for (const p of app.registry.plugins) {
    // Built-in plugins name their source in parentheses already.
    process.stdout.write(`${p.name}  ${p.source.startsWith('(') ? p.source : `(${p.source})`}\n`);
    if (p.grantTypes.length) process.stdout.write(`  grant types:            ${p.grantTypes.join(', ')}\n`);
    if (p.authenticationMethods.length) process.stdout.write(`  authentication methods: ${p.authenticationMethods.join(', ')}\n`);
    if (p.secretTypes.length) process.stdout.write(`  secret types:           ${p.secretTypes.join(', ')}\n`);
    if (p.resourceOwners) process.stdout.write(`  resource owners:        this plugin's user store (instead of the config users)\n`);
  }
  return 0;
}
