/**
 * What a client from the database changes beyond its own authentication (issue 19 follow-up):
 * its `allowedCorsOrigins` open CORS for its origin, and a stored public client puts `none` in
 * discovery's auth methods, each within the refresh interval and back again when it goes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { UserConfig } from '../../src/config/schema.js';
import { createEntryChecker } from '../../src/clients/check-entry.js';
import { createClientAdmin, type ClientAdmin } from '../../src/clients/client-admin.js';
import { hashSecret } from '../../src/sdk/hash.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import { basic, startServer, type TestServer } from '../support/server.js';

const spaOrigin = 'https://app.example.com';
const config: UserConfig = {
  apiScopes: [{ name: 'api1.read' }],
  clients: [{ clientId: 'm2m', clientSecrets: [{ value: hashSecret('m2m-secret') }], allowedGrantTypes: ['client_credentials'], allowedScopes: ['api1.read'] }],
  clientStores: { refreshInterval: 1 },
};

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(): Promise<{ server: TestServer; admin: ClientAdmin }> {
  const store = createMemoryStore();
  server = await startServer(config, { store });
  const admin = createClientAdmin({ records: store.clientRecords, checker: createEntryChecker(server.app.config, server.app.registry), config: server.app.config, clock: { now: () => Date.now() } });
  return { server, admin };
}

/** Polls until `done` holds for the answer, or the bound (refresh interval plus slack) runs out. */
async function within<T>(ms: number, attempt: () => Promise<T>, done: (reply: T) => boolean): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const reply = await attempt();
    if (done(reply) || Date.now() > until) return reply;
    await new Promise((r) => setTimeout(r, 100));
  }
}

const tokenFrom = (s: TestServer, origin: string) =>
  fetch(`${s.url}/connect/token`, {
    method: 'POST',
    headers: { origin, 'content-type': 'application/x-www-form-urlencoded', authorization: basic('m2m', 'm2m-secret') },
    body: 'grant_type=client_credentials',
  }).then(async (res) => ({ status: res.status, allowOrigin: res.headers.get('access-control-allow-origin'), body: await res.json() }));

const preflightFrom = (s: TestServer, origin: string) =>
  fetch(`${s.url}/connect/token`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST' } }).then(async (res) => ({
    status: res.status,
    allowOrigin: res.headers.get('access-control-allow-origin'),
    allowMethods: res.headers.get('access-control-allow-methods'),
    body: await res.text(),
  }));

const discovery = (s: TestServer) =>
  fetch(`${s.url}/.well-known/openid-configuration`).then((res) => res.json() as Promise<Record<string, string[]>>);

describe('CORS for a client from the database', () => {
  it('answers its origin once the client is stored, and stops when the client is removed', async () => {
    const { server: s, admin } = await start();
    expect(await tokenFrom(s, spaOrigin)).toMatchObject({ status: 200, allowOrigin: null });

    await admin.add('client', 'spa', { allowedGrantTypes: ['client_credentials'], allowedScopes: ['api1.read'], allowedCorsOrigins: [spaOrigin] });
    const preflight = await within(2500, () => preflightFrom(s, spaOrigin), (r) => r.allowOrigin !== null);
    expect(preflight).toEqual({ status: 204, allowOrigin: spaOrigin, allowMethods: 'POST', body: '' });
    expect(await tokenFrom(s, spaOrigin)).toMatchObject({ status: 200, allowOrigin: spaOrigin });
    // Another origin still gets no CORS answer, and its preflight is refused.
    expect(await preflightFrom(s, 'https://evil.example.net')).toMatchObject({ status: 403, allowOrigin: null });

    await admin.remove('client', 'spa');
    // No client lists an origin any more: no CORS at all, the preflight is a plain OPTIONS.
    const after = await within(2500, () => preflightFrom(s, spaOrigin), (r) => r.allowOrigin === null);
    expect(after).toEqual({ status: 200, allowOrigin: null, allowMethods: null, body: '' });
    expect(await tokenFrom(s, spaOrigin)).toMatchObject({ status: 200, allowOrigin: null });
  });
});

describe('discovery with clients from the database', () => {
  it('lists none while a stored public client exists, and offline_access while a stored client may use it', async () => {
    const { server: s, admin } = await start();
    const before = await discovery(s);
    expect(before.token_endpoint_auth_methods_supported).not.toContain('none');
    expect(before.scopes_supported).not.toContain('offline_access');

    await admin.add('client', 'native', {
      requireClientSecret: false, allowedGrantTypes: ['authorization_code'], redirectUris: ['https://native.example.com/cb'],
      allowedScopes: ['api1.read'], allowOfflineAccess: true,
    });
    const after = await within(2500, () => discovery(s), (d) => d.token_endpoint_auth_methods_supported!.includes('none'));
    expect(after.token_endpoint_auth_methods_supported).toEqual([...before.token_endpoint_auth_methods_supported!, 'none']);
    expect(after.revocation_endpoint_auth_methods_supported).toContain('none');
    expect(after.introspection_endpoint_auth_methods_supported).not.toContain('none');
    expect(after.scopes_supported).toEqual([...before.scopes_supported!, 'offline_access']);

    await admin.setDisabled('client', 'native', true);
    const disabled = await within(2500, () => discovery(s), (d) => !d.token_endpoint_auth_methods_supported!.includes('none'));
    expect(disabled).toEqual(before);
  });
});
