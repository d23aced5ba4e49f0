/**
 * The admin API takes the client fields the loaded plugins declare (issue 32) as it takes the
 * service's own: `allowedSubjectTokenAudiences` of the delegation and token exchange plugins, and
 * `costCentre` / `billedApis` of a stranger's plugin folder (`test/fixtures/plugins/client-fields`).
 * Each is judged by its plugin's check when the client is written; the document the listener
 * serves shows them all, the stranger's included.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserConfig } from '../../src/config/schema.js';
import { hashSecret } from '../../src/sdk/hash.js';
import { fixturePluginDir } from '../e2e/plugin-dirs.js';
import { basic, firstPartyPlugins, postForm, startServer, type TestServer } from '../support/server.js';
import { adminClient, type AdminClient } from './admin-client.js';

declare module '../../src/sdk/client-fields.js' {
  interface PluginClientFields {
    costCentre?: string;
    billedApis?: readonly string[];
  }
}

const config: UserConfig = {
  pluginDirs: [firstPartyPlugins, fixturePluginDir('client-fields')],
  apiScopes: [{ name: 'admin' }, { name: 'api1.read' }, { name: 'backend.read' }],
  apiResources: [{ name: 'svc-admin', scopes: ['admin'] }, { name: 'api1', scopes: ['api1.read'] }],
  clients: [
    { clientId: 'ops', clientSecrets: [{ value: hashSecret('ops-secret') }], allowedGrantTypes: ['client_credentials'], allowedScopes: ['admin'] },
    // The stranger's field in the config file: accepted, as its plugin is loaded.
    { clientId: 'reports', clientSecrets: [{ value: hashSecret('reports-secret') }], allowedGrantTypes: ['client_credentials'], allowedScopes: ['api1.read'], costCentre: 'CC-1' },
  ],
  admin: { port: 0 },
};

const fronting = { allowedGrantTypes: ['delegation'], allowedScopes: ['backend.read'], requireClientSecret: false };

let server: TestServer;
let api: AdminClient;
let ops: string;

beforeAll(async () => {
  server = await startServer(config);
  const { url } = await server.app.listenAdmin(0, '127.0.0.1');
  api = await adminClient(url);
  const res = await postForm(`${server.url}/connect/token`, { grant_type: 'client_credentials' }, { authorization: basic('ops', 'ops-secret') });
  ops = res.body.access_token as string;
});
afterAll(async () => {
  await server?.close();
});

describe('plugin client fields through the admin API', () => {
  it('shows every loaded plugin\'s field in the client schema of the document it serves', () => {
    const client = (api.document as { components: { schemas: Record<string, { properties: Record<string, { description?: string }> }> } }).components.schemas.Client!;
    expect(client.properties.allowedSubjectTokenAudiences!.description).toMatch(/Declared by the "delegation" and "token-exchange" plugins\.$/);
    expect(client.properties.costCentre!.description).toMatch(/Declared by the "billing" plugin\.$/);
    expect(Object.keys(client.properties)).toContain('billedApis');
  });

  it('creates and replaces a client with plugin fields, and reads them back as given', async () => {
    const created = await api.call('POST', '/clients', { token: ops, body: { clientId: 'api1.client', ...fronting, allowedSubjectTokenAudiences: ['api1'], costCentre: 'CC-42' } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.client).toMatchObject({ allowedSubjectTokenAudiences: ['api1'], costCentre: 'CC-42' });
    const replaced = await api.call('PUT', '/clients/api1.client', {
      token: ops, ifMatch: created.headers.get('etag')!, body: { ...fronting, allowedSubjectTokenAudiences: ['api1'], billedApis: ['api1'] },
    });
    expect(replaced.status, JSON.stringify(replaced.body)).toBe(200);
    const read = await api.call('GET', '/clients/api1.client', { token: ops });
    expect(read.body).toMatchObject({ allowedSubjectTokenAudiences: ['api1'], billedApis: ['api1'] });
    expect(read.body.costCentre).toBeUndefined();
  });

  it('refuses a bad value with a 400 problem naming the field and the plugin, and stores nothing', async () => {
    const res = await api.call('POST', '/clients', { token: ops, body: { clientId: 'odd', ...fronting, allowedSubjectTokenAudiences: ['payroll'] } });
    expect(res.status).toBe(400);
    expect(res.body.detail).toContain('client "odd".allowedSubjectTokenAudiences[0]: unknown API resource "payroll" (known: svc-admin, api1) (plugin "delegation")');
    expect((await api.call('GET', '/clients/odd', { token: ops })).status).toBe(404);
  });

  it('refuses a bad value on replace too, naming the field', async () => {
    const created = await api.call('POST', '/clients', { token: ops, body: { clientId: 'billed', allowedGrantTypes: [], allowedScopes: ['api1.read'], requireClientSecret: false, costCentre: 'CC-7' } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const res = await api.call('PUT', '/clients/billed', { token: ops, ifMatch: created.headers.get('etag')!, body: { allowedGrantTypes: [], allowedScopes: ['api1.read'], requireClientSecret: false, costCentre: 'twelve' } });
    expect(res.status).toBe(400);
    expect(res.body.detail).toContain('client "billed".costCentre: expected "CC-" and up to 8 digits such as "CC-1234", found "twelve" (plugin "billing")');
  });

  it('still refuses a field no plugin declares: 400 naming it', async () => {
    const res = await api.call('POST', '/clients', { token: ops, body: { clientId: 'typo', ...fronting, allowedSubjectTokenAudience: ['api1'] } });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ path: 'body.allowedSubjectTokenAudience', message: 'unknown field' }]);
  });
});
