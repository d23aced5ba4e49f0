/**
 * Finds and reads the user's config through cosmiconfig (module name `svc`): `svc.config.ts` by
 * default, or `.svcrc.json`, `.svcrc.yaml`, a `svc` key in package.json, and the other usual
 * places; `--config <path>` or `SVC_CONFIG` pick a file. Validates and resolves it.
 */
import { cosmiconfig, type Loader } from 'cosmiconfig';
import { dirname, resolve as resolvePath } from 'node:path';
import { BootError } from './boot-error.js';
import { importDefault } from './module-loader.js';
import { resolveConfig } from './resolve.js';
import type { ResolvedConfig, UserConfig } from './schema.js';
import { validateUserConfig } from './validate.js';

const moduleLoader: Loader = (filepath) => importDefault(filepath);

const explorer = cosmiconfig('svc', {
  loaders: { '.ts': moduleLoader, '.mts': moduleLoader, '.js': moduleLoader, '.mjs': moduleLoader, '.cjs': moduleLoader },
});

export interface LoadedConfig {
  filepath: string;
  config: ResolvedConfig;
  /** The file's contents as read (validated), e.g. for copying a client entry as written. */
  raw: UserConfig;
}

/** Reads a config file (or searches `cwd`), validates it and resolves defaults. */
export async function loadConfig(options: { path?: string | undefined; cwd?: string; port?: number | undefined; host?: string | undefined } = {}): Promise<LoadedConfig> {
  const cwd = options.cwd ?? process.cwd();
  const explicit = options.path ?? process.env.SVC_CONFIG;
  let found: { config: unknown; filepath: string; isEmpty?: boolean } | null;
  try {
    found = explicit ? await explorer.load(resolvePath(cwd, explicit)) : await explorer.search(cwd);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new BootError('CONFIG_NOT_FOUND', `config file not found: ${resolvePath(cwd, explicit ?? '.')}`);
    }
    throw new BootError('CONFIG_LOAD_FAILED', `could not load the config: ${reason}`, { cause: err });
  }
  if (!found) {
    throw new BootError(
      'CONFIG_NOT_FOUND',
      `no config found in ${cwd}: create svc.config.ts (or .svcrc.json), or pass --config <path> / SVC_CONFIG`,
    );
  }
  const raw = found.config ?? {};
  // `--port` / `PORT` win over the file's port (and so over the issuer derived from it), and
  // `--host` / `HOST` over its listen address (a container or VM listens on 0.0.0.0 without a
  // config edit).
  const overrides = {
    ...(options.port === undefined ? {} : { port: options.port }),
    ...(options.host === undefined ? {} : { host: options.host }),
  };
  const withOverrides = Object.keys(overrides).length === 0 || !isPlainObject(raw) ? raw : { ...raw, ...overrides };
  return { filepath: found.filepath, config: checkConfig(withOverrides, dirname(found.filepath)), raw: withOverrides as UserConfig };
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Validates a config object of unknown shape and resolves it; throws one BootError listing every
 * problem. A client's fields the service does not declare are left to the plugins that declare
 * them: judged once they are loaded (`checkConfigAgainstPlugins`), refused as unknown if none does.
 */
export function checkConfig(raw: unknown, configDir: string): ResolvedConfig {
  const problems = validateUserConfig(raw, { pluginClientFields: true });
  if (problems.length > 0) throw new BootError('CONFIG_INVALID', problems);
  return resolveConfig(raw as UserConfig, configDir);
}
