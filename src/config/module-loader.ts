/**
 * The one way TypeScript is loaded at run time, for `svc.config.ts` and for plugin folders
 * alike: jiti, which needs no build step and no TypeScript compiler API (TypeScript 7 has none,
 * which breaks cosmiconfig's own `.ts` loader).
 */
import { createJiti } from 'jiti';
import { fileURLToPath } from 'node:url';

// This file is TypeScript in the repository and compiled JavaScript in the package (dist/): the
// entries are its siblings of the same kind.
const extension = import.meta.url.endsWith('.ts') ? 'ts' : 'js';
const sdkEntry = fileURLToPath(new URL(`../sdk/index.${extension}`, import.meta.url));
const configEntry = fileURLToPath(new URL(`./define-config.${extension}`, import.meta.url));

const jiti = createJiti(import.meta.url, {
  // A dropped-in plugin or a config file anywhere on disk (`/etc/svc`, with no node_modules
  // beside it) imports the SDK (and a config file `defineConfig`) by these names: the short
  // ones, or the package's own, which editors resolve to its published types.
  alias: {
    'svc/sdk': sdkEntry,
    'svc/config': configEntry,
    'svc-token-service/sdk': sdkEntry,
    'svc-token-service/config': configEntry,
  },
  interopDefault: true,
  moduleCache: true,
});

/** Imports a module and returns its default export (or the module itself when it has none). */
export async function importDefault(path: string): Promise<unknown> {
  return jiti.import(path, { default: true });
}
