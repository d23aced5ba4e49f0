/**
 * `svc --server <admin URL> clients|apis|keys list` (issue 39): the same command through a
 * running service's admin API prints the same rows for the database's clients as the command on
 * the database itself (the config file's own entries it cannot see), in the table and in --json,
 * and the same signing key table.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserConfig } from '../../src/config/schema.js';
import { hashSecret } from '../../src/sdk/hash.js';
import { basic, freePort, postForm, startServer, type TestServer } from '../support/server.js';
import { runCliWith } from '../support/svc-process.js';

let dir: string;
let configFile: string;
let server: TestServer;
let adminUrl: string;
let token: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-remote-list-'));
  const config: UserConfig = {
    store: `sqlite:${join(dir, 'svc.db')}`,
    apiScopes: [{ name: 'admin' }, { name: 'admin.read' }, { name: 'api1.read' }],
    apiResources: [{ name: 'svc-admin', scopes: ['admin', 'admin.read'] }, { name: 'api1', scopes: ['api1.read'] }],
    clients: [{ clientId: 'ops', clientSecrets: [{ value: hashSecret('ops-secret') }], allowedGrantTypes: ['client_credentials'], allowedScopes: ['admin.read'] }],
    clientStores: { refreshInterval: 1 },
    admin: { port: 0 },
  };
  server = await startServer(config);
  ({ url: adminUrl } = await server.app.listenAdmin(0, '127.0.0.1'));
  configFile = join(dir, 'svc.config.json');
  writeFileSync(configFile, JSON.stringify({ ...config, issuer: server.url }));
  for (const id of ['billing', 'reports']) {
    const added = await runCliWith({}, 'clients', 'add', id, '--grant', 'client_credentials', '--scope', 'api1.read', '--name', `${id} app`, '--config', configFile);
    expect(added.code, added.stderr).toBe(0);
  }
  const res = await postForm(`${server.url}/connect/token`, { grant_type: 'client_credentials' }, { authorization: basic('ops', 'ops-secret') });
  token = res.body.access_token as string;
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

const remote = (...args: string[]) => runCliWith({ env: { SVC_ADMIN_TOKEN: token } }, '--server', adminUrl, ...args);
const cells = (line: string) => line.trim().split(/ {2,}/);

describe('svc --server <admin URL> clients list', () => {
  it('prints the database\'s clients as svc clients list does', async () => {
    const local = await runCliWith({}, 'clients', 'list', '--config', configFile);
    const through = await remote('clients', 'list');
    expect(through.code, through.stderr).toBe(0);
    const localRows = local.stdout.trim().split('\n').map(cells).filter((row) => row.at(-1) === 'database');
    const remoteRows = through.stdout.trim().split('\n').map(cells);
    expect(remoteRows[0]).toEqual(cells(local.stdout.split('\n')[0]!));
    expect(remoteRows.slice(1)).toEqual(localRows);
    expect(remoteRows.slice(1).map((row) => row[0])).toEqual(['billing', 'reports']);
  });

  it('prints the same --json', async () => {
    const local = JSON.parse((await runCliWith({}, 'clients', 'list', '--json', '--config', configFile)).stdout) as Array<{ source: string }>;
    const through = await remote('clients', 'list', '--json');
    expect(through.code, through.stderr).toBe(0);
    expect(JSON.parse(through.stdout)).toEqual(local.filter((c) => c.source === 'database'));
  });

  it('lists API resources the same way, and says where it looked when there are none', async () => {
    const none = await remote('apis', 'list');
    expect(none).toMatchObject({ code: 0, stdout: 'no API resources in the database (the config file\'s own are not shown through --server)\n' });
    const added = await runCliWith({}, 'apis', 'add', 'orders', '--scope', 'api1.read', '--config', configFile);
    expect(added.code, added.stderr).toBe(0);
    const listed = await remote('apis', 'list');
    expect(listed.stdout.trim().split('\n').map(cells)).toEqual([['name', 'scopes', 'secrets', 'state', 'last used', 'source'], ['orders', 'api1.read', '1 live of 1', 'enabled', '-', 'database']]);
  });

  it('prints the signing keys as svc keys list does', async () => {
    const local = await runCliWith({}, 'keys', 'list', '--config', configFile);
    const through = await remote('keys', 'list');
    expect(through.code, through.stderr).toBe(0);
    expect(through.stdout).toBe(local.stdout);
    expect(through.stdout).toMatch(/^kid +alg +created +activates +retires +protection\n/);
    expect(through.stdout.trim().split('\n').length).toBeGreaterThan(1);
    expect((await remote('keys', 'rewrap')).stderr).toBe('svc: svc --server works with keys list, rotate and retire; rewrap re-encrypts the store itself: run svc keys rewrap with --config.\n');
  });

  it('says what to do without a token, with a token the API refuses, for an action it cannot do yet, or where nothing listens', async () => {
    const noToken = await runCliWith({ env: { SVC_ADMIN_TOKEN: '' } }, '--server', adminUrl, 'clients', 'list');
    expect(noToken).toMatchObject({ code: 1, stderr: 'svc: --server needs an admin access token in SVC_ADMIN_TOKEN (client credentials for svc-admin), or a client certificate in SVC_ADMIN_CERT and SVC_ADMIN_KEY for an admin API behind mutual TLS; see docs/guides/admin-api.md.\n' });
    const refused = await runCliWith({ env: { SVC_ADMIN_TOKEN: 'not-a-token' } }, '--server', adminUrl, 'clients', 'list');
    expect(refused).toMatchObject({ code: 1, stderr: 'svc: the admin API refused (401): The access token is missing, expired or revoked.\n' });
    expect((await remote('clients', 'registration-token')).stderr).toBe('svc: svc --server does not run clients registration-token; run it with --config on the database.\n');
    expect((await remote('migrate', 'status')).stderr).toBe('svc: --server works with clients, apis, users, keys so far; run svc migrate on the config\'s database.\n');
    const port = await freePort();
    const nothing = await runCliWith({ env: { SVC_ADMIN_TOKEN: token } }, '--server', `http://127.0.0.1:${port}`, 'clients', 'list');
    expect(nothing.stderr).toBe(`svc: cannot reach the admin API at http://127.0.0.1:${port}: nothing listens there (is admin.port set, and the service running?).\n`);
  });
});
