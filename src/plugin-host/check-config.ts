/**
 * The config checks that need the loaded plugins: every grant type a client allows and every
 * secret type must be provided by something registered.
 */
import { BootError } from '../config/boot-error.js';
import { didYouMean } from '../config/closest-name.js';
import type { ResolvedConfig, Secret } from '../config/schema.js';
import type { PluginRegistry } from './plugin-registry.js';

export function checkConfigAgainstPlugins(config: ResolvedConfig, registry: PluginRegistry): void {
  const problems: string[] = [];
  const grantTypes = [...registry.grants.keys()];
  const secretTypes = [...new Set(registry.secretValidators.flatMap((v) => v.secretTypes))];
  const checkSecrets = (path: string, secrets: readonly Secret[]): void =>
    secrets.forEach((s, i) => {
      if (!secretTypes.includes(s.type)) {
        problems.push(`${path}[${i}].type: unknown secret type "${s.type}"${didYouMean(s.type, secretTypes)} (known: ${secretTypes.join(', ') || 'none: no secret validator plugin is loaded'})`);
      }
    });
  config.clients.forEach((client, i) => {
    client.allowedGrantTypes.forEach((g, j) => {
      if (!registry.grants.has(g)) {
        problems.push(`clients[${i}].allowedGrantTypes[${j}]: unknown grant type "${g}"${didYouMean(g, grantTypes)} (known: ${grantTypes.join(', ')})`);
      }
    });
    checkSecrets(`clients[${i}].clientSecrets`, client.clientSecrets);
  });
  config.apiResources.forEach((r, i) => checkSecrets(`apiResources[${i}].secrets`, r.secrets));
  if (problems.length > 0) throw new BootError('CONFIG_INVALID', problems);
}
