/**
 * A service started from the config `svc init` wrote, as a newcomer gets it right after
 * `svc init`: the config's package import pointed at this clone, and what the test server
 * decides itself (port, store, plugins, keys) left out; the rest as written. With the values
 * `svc init` printed, for the test to use as a reader pastes them.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { importDefault } from '../../src/config/module-loader.js';
import type { UserConfig } from '../../src/config/schema.js';
import { initValues, type InitValues } from './init-output.js';
import { repoRoot, startServer, type TestServer } from './server.js';
import { runMain } from './svc-in-process.js';

export interface InitService {
  readonly server: TestServer;
  readonly values: InitValues;
  /** The temporary folder `svc init` wrote into (as `deployment/`): the reader's working directory. */
  readonly dir: string;
  /** Stops the service and removes the folder. */
  close(): Promise<void>;
}

/** `svc init <new temporary folder>/deployment` (the default kind), then the service it wrote, started. */
export async function startInitService(prefix: string): Promise<InitService> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  try {
    const folder = join(dir, 'deployment');
    const run = await runMain('init', folder);
    expect(run.code, run.stderr).toBe(0);
    const values = initValues(run.stdout);
    const file = join(folder, 'svc.config.ts');
    writeFileSync(file, readFileSync(file, 'utf8').replace("from 'svc-token-service/config'", `from ${JSON.stringify(join(repoRoot, 'src/config/define-config.ts'))}`));
    const { port: _port, store: _store, pluginDirs: _plugins, signing: _signing, ...config } = (await importDefault(file)) as UserConfig;
    const server = await startServer(config);
    return {
      server,
      values,
      dir,
      async close() {
        await server.close();
        remove();
      },
    };
  } catch (error) {
    remove();
    throw error;
  }
}
