/**
 * Every shell block of docs/guides/admin-api.md runs verbatim (curl and jq in bash) against a real
 * service set up as the guide says: its config lines are the ones this test starts it with.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserConfig } from '../../src/config/schema.js';
import { hashSecret } from '../../src/sdk/hash.js';
import { docSection, runReadmeScript, shellBlocks } from '../support/readme.js';
import { repoRoot, startServer, type TestServer } from '../support/server.js';

const guide = 'docs/guides/admin-api.md';
const opsHash = hashSecret('ops-demo-secret');

// As the guide writes them (checked below), plus the API its example client asks for.
const config: UserConfig = {
  apiScopes: [{ name: 'admin', description: 'Manage the service' }, { name: 'admin.read', description: 'Read the service\'s settings' }, { name: 'api1.read' }],
  apiResources: [{ name: 'svc-admin', scopes: ['admin', 'admin.read'] }, { name: 'api1', scopes: ['api1.read'] }],
  clients: [{ clientId: 'ops', clientSecrets: [{ value: opsHash }], allowedGrantTypes: ['client_credentials'], allowedScopes: ['admin'] }],
  admin: { port: 0 },
};

let server: TestServer;
let adminUrl: string;
beforeAll(async () => {
  server = await startServer(config);
  ({ url: adminUrl } = await server.app.listenAdmin(0, '127.0.0.1'));
});
afterAll(async () => {
  await server?.close();
});

describe('docs/guides/admin-api.md', () => {
  it('declares the admin API resource, its scopes and the admin client as this test does', () => {
    const setup = docSection(guide, '## Enabling it', '## A first call');
    expect(setup).toContain('admin: { port: 5001 }');
    expect(setup).toContain("{ name: 'svc-admin', scopes: ['admin', 'admin.read'] }");
    expect(setup).toContain("{ name: 'admin', description: 'Manage the service' }");
    expect(setup).toContain(`{ clientId: 'ops', clientSecrets: [{ value: '${opsHash}' }], allowedGrantTypes: ['client_credentials'], allowedScopes: ['admin'] }`);
  });

  it('runs verbatim: a token, the list, a new client\'s secret, a change with If-Match, the CLI through the API', async () => {
    const blocks = shellBlocks(docSection(guide, '# The admin API', '## Mutual TLS'));
    expect(blocks).toHaveLength(3);
    const script = blocks.join('\n').replaceAll('http://127.0.0.1:5001', adminUrl);
    const out = (await runReadmeScript(script, { url: server.url, cwd: repoRoot })).trim().split('\n');
    expect(JSON.parse(out[0]!)).toEqual({ items: [] });
    expect(out[1]).toMatch(/^[\w-]{43}$/);
    expect(out[2]).toBe('Billing');
    expect(out[3]).toMatch(/^client_id +name +grant types/);
    expect(out[4]).toMatch(/^billing +Billing +client_credentials +api1\.read +1 live of 1 +enabled +- +database$/);
    expect(server.logs.some((l) => (l.event as { type?: string; clientId?: string } | undefined)?.type === 'admin.request' && (l.event as { clientId?: string }).clientId === 'ops')).toBe(true);
  });
});
