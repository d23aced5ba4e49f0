/**
 * Finds plugin folders: every directory inside a plugin dir is one plugin, entered through its
 * `index.ts`, `index.js` or `index.mjs`. The folder name is the plugin name.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { BootError } from '../config/boot-error.js';

export interface PluginFolder {
  readonly name: string;
  readonly dir: string;
  readonly entry: string;
}

const entryNames = ['index.ts', 'index.mts', 'index.js', 'index.mjs'];

export function discoverPluginFolders(pluginDirs: readonly string[], options: { skipMissing?: boolean } = {}): PluginFolder[] {
  const folders: PluginFolder[] = [];
  for (const root of pluginDirs) {
    if (options.skipMissing && !existsSync(root)) continue;
    if (!existsSync(root) || !statSync(root).isDirectory()) {
      throw new BootError('PLUGIN_DIR_MISSING', `pluginDirs: "${root}" is not a directory (fix the path or create it)`);
    }
    for (const name of readdirSync(root).sort()) {
      const dir = join(root, name);
      // Hidden folders and node_modules are tooling, not plugins.
      if (name.startsWith('.') || name === 'node_modules' || !statSync(dir).isDirectory()) continue;
      const entry = entryNames.map((e) => join(dir, e)).find((p) => existsSync(p));
      if (!entry) {
        throw new BootError('PLUGIN_INVALID', `plugin folder ${dir}: no ${entryNames.join(', ')} found`);
      }
      folders.push({ name, dir, entry });
    }
  }
  return folders;
}
