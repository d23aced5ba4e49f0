/**
 * A running service with its admin API listening, for `svc --server` tests (issue 39): a SQLite
 * database in a fresh folder, the same config written to a file so the command can also run on
 * the database with `--config`, and an admin access token from the `ops` client (client
 * credentials), as an operator would get one.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { UserConfig } from '../../src/config/schema.js';
import { hashSecret } from '../../src/sdk/hash.js';
import { basic, postForm, startServer, type TestServer } from './server.js';
import { runCliWith, type CliRun } from './svc-process.js';

export interface AdminService {
  readonly server: TestServer;
  readonly adminUrl: string;
  /** The service's config as a file, for `svc ... --config` on the same database. */
  readonly configFile: string;
  /** An access token for the admin API, with `opsScope`. */
  readonly token: string;
  /** `svc --server <adminUrl> <args>` as a child process, the token in SVC_ADMIN_TOKEN. */
  remote(...args: string[]): Promise<CliRun>;
  close(): Promise<void>;
}

export async function startAdminService(options: {
  /** Names the temporary folder. */
  name: string;
  /** What the `ops` client may ask for: `admin.read` for a token that may only read. */
  opsScope?: 'admin' | 'admin.read';
  /** More of the config: its apiScopes and apiResources go beside the admin API's own. */
  config?: UserConfig;
}): Promise<AdminService> {
  const { apiScopes = [], apiResources = [], ...rest } = options.config ?? {};
  const dir = mkdtempSync(join(tmpdir(), `svc-${options.name}-`));
  const config: UserConfig = {
    store: `sqlite:${join(dir, 'svc.db')}`,
    apiScopes: [{ name: 'admin' }, { name: 'admin.read' }, ...apiScopes],
    apiResources: [{ name: 'svc-admin', scopes: ['admin', 'admin.read'] }, ...apiResources],
    clients: [{ clientId: 'ops', clientSecrets: [{ value: hashSecret('ops-secret') }], allowedGrantTypes: ['client_credentials'], allowedScopes: [options.opsScope ?? 'admin'] }],
    admin: { port: 0 },
    ...rest,
  };
  let server: TestServer | undefined;
  try {
    server = await startServer(config);
    const { url: adminUrl } = await server.app.listenAdmin(0, '127.0.0.1');
    const configFile = join(dir, 'svc.config.json');
    writeFileSync(configFile, JSON.stringify({ ...config, issuer: server.url }));
    const res = await postForm(`${server.url}/connect/token`, { grant_type: 'client_credentials' }, { authorization: basic('ops', 'ops-secret') });
    const token = res.body.access_token as string;
    expect(token).toBeTypeOf('string');
    const running = server;
    return {
      server, adminUrl, configFile, token,
      remote: (...args) => runCliWith({ env: { SVC_ADMIN_TOKEN: token } }, '--server', adminUrl, ...args),
      async close() {
        await running.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}
