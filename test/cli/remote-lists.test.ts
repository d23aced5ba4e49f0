/**
 * `svc --server <admin URL> clients|apis|keys list` (issue 39): the same command through a
 * running service's admin API prints the same rows for the database's clients as the command on
 * the database itself (the config file's own entries it cannot see), in the table and in --json,
 * and the same signing key table.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/server.js';
import { startAdminService, type AdminService } from '../support/admin-service.js';
import { runCliWith } from '../support/svc-process.js';

let service: AdminService;

beforeAll(async () => {
  service = await startAdminService({
    name: 'remote-list',
    // A token that may only read.
    opsScope: 'admin.read',
    config: { apiScopes: [{ name: 'api1.read' }], apiResources: [{ name: 'api1', scopes: ['api1.read'] }], clientStores: { refreshInterval: 1 } },
  });
  for (const id of ['billing', 'reports']) {
    const added = await runCliWith({}, 'clients', 'add', id, '--grant', 'client_credentials', '--scope', 'api1.read', '--name', `${id} app`, '--config', service.configFile);
    expect(added.code, added.stderr).toBe(0);
  }
});
afterAll(async () => {
  await service?.close();
});

const remote = (...args: string[]) => service.remote(...args);
const cells = (line: string) => line.trim().split(/ {2,}/);

describe('svc --server <admin URL> clients list', () => {
  it('prints the database\'s clients as svc clients list does', async () => {
    const local = await runCliWith({}, 'clients', 'list', '--config', service.configFile);
    const through = await remote('clients', 'list');
    expect(through.code, through.stderr).toBe(0);
    const localRows = local.stdout.trim().split('\n').map(cells).filter((row) => row.at(-1) === 'database');
    const remoteRows = through.stdout.trim().split('\n').map(cells);
    expect(remoteRows[0]).toEqual(cells(local.stdout.split('\n')[0]!));
    expect(remoteRows.slice(1)).toEqual(localRows);
    expect(remoteRows.slice(1).map((row) => row[0])).toEqual(['billing', 'reports']);
  });

  it('prints the same --json', async () => {
    const local = JSON.parse((await runCliWith({}, 'clients', 'list', '--json', '--config', service.configFile)).stdout) as Array<{ source: string }>;
    const through = await remote('clients', 'list', '--json');
    expect(through.code, through.stderr).toBe(0);
    expect(JSON.parse(through.stdout)).toEqual(local.filter((c) => c.source === 'database'));
  });

  it('lists API resources the same way, and says where it looked when there are none', async () => {
    const none = await remote('apis', 'list');
    expect(none).toMatchObject({ code: 0, stdout: 'no API resources in the database (the config file\'s own are not shown through --server)\n' });
    const added = await runCliWith({}, 'apis', 'add', 'orders', '--scope', 'api1.read', '--config', service.configFile);
    expect(added.code, added.stderr).toBe(0);
    const listed = await remote('apis', 'list');
    expect(listed.stdout.trim().split('\n').map(cells)).toEqual([['name', 'scopes', 'secrets', 'state', 'last used', 'source'], ['orders', 'api1.read', '1 live of 1', 'enabled', '-', 'database']]);
  });

  it('prints the signing keys as svc keys list does', async () => {
    const local = await runCliWith({}, 'keys', 'list', '--config', service.configFile);
    const through = await remote('keys', 'list');
    expect(through.code, through.stderr).toBe(0);
    expect(through.stdout).toBe(local.stdout);
    expect(through.stdout).toMatch(/^kid +alg +created +activates +retires +protection\n/);
    expect(through.stdout.trim().split('\n').length).toBeGreaterThan(1);
    expect((await remote('keys', 'rewrap')).stderr).toBe('svc: svc --server works with keys list, rotate and retire; rewrap re-encrypts the store itself: run svc keys rewrap with --config.\n');
  });

  it('says what to do without a token, with a token the API refuses, for an action it cannot do yet, or where nothing listens', async () => {
    const noToken = await runCliWith({ env: { SVC_ADMIN_TOKEN: '' } }, '--server', service.adminUrl, 'clients', 'list');
    expect(noToken).toMatchObject({ code: 1, stderr: 'svc: --server needs an admin access token in SVC_ADMIN_TOKEN (client credentials for svc-admin), or a client certificate in SVC_ADMIN_CERT and SVC_ADMIN_KEY for an admin API behind mutual TLS; see docs/guides/admin-api.md.\n' });
    const refused = await runCliWith({ env: { SVC_ADMIN_TOKEN: 'not-a-token' } }, '--server', service.adminUrl, 'clients', 'list');
    expect(refused).toMatchObject({ code: 1, stderr: 'svc: the admin API refused (401): The access token is missing, expired or revoked.\n' });
    expect((await remote('clients', 'registration-token')).stderr).toBe('svc: svc --server does not run clients registration-token; run it with --config on the database.\n');
    expect((await remote('migrate', 'status')).stderr).toBe('svc: --server works with clients, apis, users, keys so far; run svc migrate on the config\'s database.\n');
    const port = await freePort();
    const nothing = await runCliWith({ env: { SVC_ADMIN_TOKEN: service.token } }, '--server', `http://127.0.0.1:${port}`, 'clients', 'list');
    expect(nothing.stderr).toBe(`svc: cannot reach the admin API at http://127.0.0.1:${port}: nothing listens there (is admin.port set, and the service running?).\n`);
  });
});
