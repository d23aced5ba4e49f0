/**
 * Judges the client fields the service does not declare (`src/config/plugin-client-fields.ts`)
 * once the plugins are loaded: each is checked by every plugin that declares it
 * (`Plugin.clientFields`), and one that no plugin declares is refused as unknown, with the
 * closest known name, as the service's own fields are.
 */
import { didYouMean } from '../config/closest-name.js';
import { hostClientFields } from '../config/plugin-client-fields.js';
import type { ApiResource, Client } from '../config/schema.js';
import { isOptionsError } from '../sdk/errors.js';
import type { ClientField } from '../sdk/client-fields.js';
import { sameDeclaration, type PluginRegistry } from './plugin-registry.js';

/** One problem line per field, led by `path` (e.g. `clients[0]`). */
export function checkPluginClientFields(
  path: string,
  client: Pick<Client, 'pluginFields'>,
  apiResources: readonly ApiResource[],
  registry: Pick<PluginRegistry, 'clientFields'>,
): string[] {
  const declared = registry.clientFields ?? new Map();
  const problems: string[] = [];
  const context = { apiResources };
  for (const [name, value] of Object.entries(client.pluginFields ?? {})) {
    const declarations = declared.get(name);
    if (declarations === undefined) {
      const known = [...hostClientFields, ...declared.keys()];
      problems.push(`${path}.${name}: unknown field${didYouMean(name, known)} (known: ${known.join(', ')})`);
      continue;
    }
    if (value === undefined) continue;
    const checked: ClientField<unknown>[] = [];
    for (const { plugin, field } of declarations) {
      // One declaration several plugins list (e.g. allowedSubjectTokenAudiences) is checked once.
      if (checked.some((c) => sameDeclaration(c, field))) continue;
      checked.push(field);
      try {
        field.check(value, context);
      } catch (err) {
        const where = isOptionsError(err) ? `${name}${err.field === '' || err.field.startsWith('[') ? '' : '.'}${err.field}: ${err.problem}` : `${name}: ${(err as Error).message}`;
        problems.push(`${path}.${where} (plugin "${plugin}")`);
        break;
      }
    }
  }
  return problems;
}
