/** Discovers, imports and checks every plugin folder; nothing of a plugin runs before it passes. */
import { BootError } from '../config/boot-error.js';
import { importDefault } from '../config/module-loader.js';
import type { Plugin } from '../sdk/contracts.js';
import { checkPluginExport } from './check.js';
import { discoverPluginFolders, type PluginFolder } from './discover.js';

export interface LoadedPlugin {
  readonly plugin: Plugin;
  readonly folder: PluginFolder;
}

export async function loadPluginFolders(pluginDirs: readonly string[]): Promise<LoadedPlugin[]> {
  const loaded: LoadedPlugin[] = [];
  for (const folder of discoverPluginFolders(pluginDirs)) {
    let exported: unknown;
    try {
      exported = await importDefault(folder.entry);
    } catch (err) {
      throw new BootError('PLUGIN_LOAD_FAILED', `plugin folder ${folder.dir}: could not be loaded: ${(err as Error).message}`, { cause: err });
    }
    loaded.push({ plugin: checkPluginExport(exported, folder), folder });
  }
  return loaded;
}
