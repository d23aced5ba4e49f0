/**
 * Clients at run time across nodes (issue 19): two nodes on one PostgreSQL schema; a client the
 * operator adds with `svc clients add` authenticates at either node within
 * `clientStores.refreshInterval`, and disabling it reaches both within the same bound. The
 * command runs through the CLI's entry in process (test/cli spawns the binary): a process of its
 * own would add seconds of loading, before the nodes' clocks even start to matter.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserConfig } from '../../src/config/schema.js';
import { hashSecret } from '../../src/sdk/hash.js';
import { createTestSchema, postgresSkipReason, type TestSchema } from '../support/pg.js';
import { basic, firstPartyPlugins, postForm, startServer, type TestServer } from '../support/server.js';
import { runMain } from '../support/svc-in-process.js';

const skip = await postgresSkipReason('client store tests on PostgreSQL');
const refreshInterval = 2;
/** The bound: one refresh interval, plus a second for a loaded machine's scheduling. */
const boundMs = refreshInterval * 1000 + 1000;

describe.skipIf(skip)('clients from PostgreSQL on two nodes', () => {
  let schema: TestSchema;
  let a: TestServer;
  let b: TestServer;
  let dir: string;
  let configFile: string;

  beforeAll(async () => {
    schema = await createTestSchema('client_stores');
    const config: UserConfig = {
      store: schema.url,
      pluginDirs: [firstPartyPlugins],
      issuer: 'https://svc.client-stores.test',
      apiScopes: [{ name: 'api1.read' }],
      apiResources: [{ name: 'api1', scopes: ['api1.read'] }],
      clients: [{ clientId: 'm2m', clientSecrets: [{ value: hashSecret('m2m-secret') }], allowedGrantTypes: ['client_credentials'], allowedScopes: ['api1.read'] }],
      clientStores: { refreshInterval },
    };
    a = await startServer(config);
    b = await startServer(config);
    dir = mkdtempSync(join(tmpdir(), 'svc-client-stores-pg-'));
    configFile = join(dir, 'svc.config.json');
    writeFileSync(configFile, JSON.stringify(config));
  }, 60_000);

  afterAll(async () => {
    await a?.close();
    await b?.close();
    await schema?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const token = (node: TestServer, id: string, secret: string) =>
    postForm(`${node.url}/connect/token`, { grant_type: 'client_credentials' }, { authorization: basic(id, secret) });

  /** Milliseconds until the node answers `status`, polling every 50 ms, or -1 past twice the bound. */
  async function msUntil(node: TestServer, id: string, secret: string, status: number): Promise<number> {
    const started = Date.now();
    while (Date.now() - started < 2 * boundMs) {
      if ((await token(node, id, secret)).status === status) return Date.now() - started;
      await new Promise((r) => setTimeout(r, 50));
    }
    return -1;
  }

  it('a client added through the CLI authenticates at both nodes within the bound, and a disable reaches both', async () => {
    const added = await runMain('clients', 'add', 'reports', '--grant', 'client_credentials', '--scope', 'api1.read', '--json', '--config', configFile);
    expect(added).toMatchObject({ code: 0, stderr: '' });
    const { secret } = JSON.parse(added.stdout) as { secret: string };
    const [atB, atA] = await Promise.all([msUntil(b, 'reports', secret, 200), msUntil(a, 'reports', secret, 200)]);
    expect(atB).toBeGreaterThanOrEqual(0);
    expect(atB).toBeLessThanOrEqual(boundMs);
    expect(atA).toBeGreaterThanOrEqual(0);
    expect(atA).toBeLessThanOrEqual(boundMs);

    expect((await runMain('clients', 'disable', 'reports', '--config', configFile)).code).toBe(0);
    const [offB, offA] = await Promise.all([msUntil(b, 'reports', secret, 401), msUntil(a, 'reports', secret, 401)]);
    expect(offB).toBeGreaterThanOrEqual(0);
    expect(offB).toBeLessThanOrEqual(boundMs);
    expect(offA).toBeGreaterThanOrEqual(0);
    expect(offA).toBeLessThanOrEqual(boundMs);
    expect((await token(b, 'reports', secret)).body).toEqual({ error: 'invalid_client', error_description: 'Client authentication failed.' });
    // The config's client is untouched throughout.
    expect((await token(b, 'm2m', 'm2m-secret')).status).toBe(200);
    // Nodes wrote the last use (at most once a minute), and only the hash is in the database.
    const rows = await schema.query<{ value: string }>('select value from client_secrets');
    expect(rows).toEqual([{ value: hashSecret(secret) }]);
    const [record] = await schema.query<{ last_used_at: string | null }>("select last_used_at from client_records where id = 'reports'");
    expect(record!.last_used_at).not.toBeNull();
  }, 90_000);
});
