/**
 * A plugin's client store (issue 19), loaded from a plugin folder like any stranger's: its
 * clients authenticate, an edit of its file reaches the service within the refresh interval,
 * a client id it shares with the config stops start-up, and a malformed store stops it too.
 */
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserConfig } from '../../src/config/schema.js';
import { hashSecret } from '../../src/sdk/hash.js';
import { bootErrorFor } from '../support/boot-error.js';
import { basic, firstPartyPlugins, postForm, repoRoot, startServer, type TestServer } from '../support/server.js';

const plugins = fileURLToPath(new URL('../fixtures/client-store-plugin/plugins', import.meta.url));
const broken = fileURLToPath(new URL('../fixtures/client-store-plugin/broken/plugins', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'svc-client-store-plugin-'));
const file = join(dir, 'clients.json');
const entry = (clientId: string, secret: string) => ({ clientId, clientSecrets: [{ value: hashSecret(secret) }], allowedGrantTypes: ['client_credentials'], allowedScopes: ['api1.read'] });
const config: UserConfig = {
  pluginDirs: [firstPartyPlugins, plugins],
  plugins: { 'clients-file': { path: file } },
  apiScopes: [{ name: 'api1.read' }],
  apiResources: [{ name: 'api1', scopes: ['api1.read'] }],
  clients: [entry('m2m', 'm2m-secret')],
  clientStores: { refreshInterval: 1 },
};

let server: TestServer;
beforeAll(async () => {
  writeFileSync(file, JSON.stringify({ clients: [entry('from-file', 'file-secret')], apiResources: [] }));
  server = await startServer(config);
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

const token = (id: string, secret: string) => postForm(`${server.url}/connect/token`, { grant_type: 'client_credentials' }, { authorization: basic(id, secret) });

describe('a plugin client store', () => {
  it('serves its clients, and follows an edit of its source within the refresh interval', async () => {
    expect((await token('from-file', 'file-secret')).status).toBe(200);
    writeFileSync(file, JSON.stringify({ clients: [entry('from-file', 'file-secret'), { ...entry('later', 'later-secret'), disabled: false }], apiResources: [] }));
    utimesSync(file, new Date(), new Date(Date.now() + 5000));
    const until = Date.now() + 3000;
    let status = 0;
    while (Date.now() < until && (status = (await token('later', 'later-secret')).status) !== 200) await new Promise((r) => setTimeout(r, 200));
    expect(status).toBe(200);
  });

  it('stops start-up when it defines a client id the config defines', async () => {
    writeFileSync(join(dir, 'clash.json'), JSON.stringify({ clients: [entry('m2m', 'other')], apiResources: [] }));
    const err = await bootErrorFor({ ...config, store: 'memory', plugins: { 'clients-file': { path: join(dir, 'clash.json') } } }, repoRoot);
    expect(err).toMatchObject({ code: 'CLIENT_CONFLICT', problems: ['client id "m2m" is defined by client store "config" and by "clients-file" (remove it from one of them)'] });
  });

  it('stops start-up when a store is malformed, naming the plugin and the factory', async () => {
    const err = await bootErrorFor({ ...config, store: 'memory', pluginDirs: [firstPartyPlugins, broken], plugins: {} }, repoRoot);
    expect(err).toMatchObject({ code: 'PLUGIN_INVALID' });
    expect(err.message).toMatch(/^plugin "clients-nameless" \(.*broken\/plugins\/clients-nameless\): clientStores\[0\]: name must be a non-empty string$/);
  });
});
