/**
 * The client fields the package's own plugins (`plugins/`) declare, for what is made without a
 * running service and its config: the editor schema and the config reference
 * (`npm run config-schema`), the admin API's document in docs/ (`npm run admin-openapi`) and the
 * flags of `svc clients`. A deployment's own plugin is not known there; its fields show where the
 * running service describes itself (the admin API's `/openapi.json`), and `svc clients` sets them
 * with `--definition`.
 */
import { discoverPluginFolders } from './discover.js';
import { loadPlugins, packagePluginDir } from './load-plugins.js';
import type { DescribedClientField } from '../config/plugin-client-field-schemas.js';
import { sameDeclaration } from './plugin-registry.js';

let loaded: Promise<DescribedClientField[]> | undefined;

/** Each field once, with the plugins (by folder name) that declare it. */
export function packageClientFields(): Promise<DescribedClientField[]> {
  loaded ??= (async () => {
    const names = discoverPluginFolders([packagePluginDir]).map((f) => f.name);
    const plugins = await loadPlugins({ packagePlugins: names, pluginDirs: [], pluginDirsRequired: false });
    const fields: Array<{ field: DescribedClientField['field']; plugins: string[] }> = [];
    for (const { plugin } of plugins) {
      for (const field of plugin.clientFields ?? []) {
        const known = fields.find((d) => sameDeclaration(d.field, field));
        if (known) known.plugins.push(plugin.name);
        else fields.push({ field, plugins: [plugin.name] });
      }
    }
    return fields;
  })();
  return loaded;
}
