/**
 * Discovers, imports and checks every plugin folder; nothing of a plugin runs before it passes.
 * The package's own plugins (`plugins/` inside the installed package, the ones the config's
 * `packagePlugins` names) come first, then the deployment's `pluginDirs`, all through the same
 * discovery, loader and checks.
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { BootError } from '../config/boot-error.js';
import { importDefault } from '../config/module-loader.js';
import type { Plugin } from '../sdk/contracts.js';
import { checkPluginExport } from './check.js';
import { discoverPluginFolders, type PluginFolder } from './discover.js';

export interface LoadedPlugin {
  readonly plugin: Plugin;
  readonly folder: PluginFolder;
}

/** `plugins/` of the package this file belongs to: the first-party plugins ship there. */
export const packagePluginDir = fileURLToPath(new URL('../../plugins', import.meta.url));

export interface PluginSources {
  readonly packagePlugins: readonly string[];
  readonly pluginDirs: readonly string[];
  /** False: a missing plugin dir is skipped (the default `./plugins` of a deployment that has none). */
  readonly pluginDirsRequired: boolean;
}

async function importFolder(folder: PluginFolder): Promise<LoadedPlugin> {
  let exported: unknown;
  try {
    exported = await importDefault(folder.entry);
  } catch (err) {
    throw new BootError('PLUGIN_LOAD_FAILED', `plugin folder ${folder.dir}: could not be loaded: ${(err as Error).message}`, { cause: err });
  }
  return { plugin: checkPluginExport(exported, folder), folder };
}

const realPath = (dir: string): string => {
  try {
    return realpathSync(dir);
  } catch {
    return dir;
  }
};

/**
 * Every plugin folder to load: the package's chosen ones, then the deployment's. A deployment
 * folder named like a loaded package plugin stops start-up, unless it is that very folder (this
 * repository's own `./plugins`, or a link to it), which loads once. Two deployment folders of
 * one name are the registry's to refuse, as before.
 */
export function pluginFolders(sources: PluginSources): PluginFolder[] {
  const wanted = new Set(sources.packagePlugins);
  const fromPackage = new Map(discoverPluginFolders([packagePluginDir]).filter((f) => wanted.has(f.name)).map((f) => [f.name, f]));
  const folders = [...fromPackage.values()];
  for (const folder of discoverPluginFolders(sources.pluginDirs, { skipMissing: !sources.pluginDirsRequired })) {
    const shipped = fromPackage.get(folder.name);
    if (shipped === undefined) {
      folders.push(folder);
      continue;
    }
    if (realPath(shipped.dir) === realPath(folder.dir)) continue;
    throw new BootError(
      'PLUGIN_CONFLICT',
      `two plugins are named "${folder.name}": ${shipped.dir} (in the package) and ${folder.dir}; rename yours (folder and name), or leave "${folder.name}" out of packagePlugins to use yours instead`,
    );
  }
  return folders;
}

export async function loadPlugins(sources: PluginSources): Promise<LoadedPlugin[]> {
  const loaded: LoadedPlugin[] = [];
  for (const folder of pluginFolders(sources)) loaded.push(await importFolder(folder));
  return loaded;
}
