/**
 * Clients from the database (issue 19): a client the operator adds while the service runs
 * authenticates within the refresh interval; disabled clients and expired secrets are refused and
 * raise events; an id defined twice stops start-up or is refused at run time with a log line.
 */
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app/create-app.js';
import { BootError } from '../../src/config/boot-error.js';
import { checkConfig } from '../../src/config/load.js';
import type { UserConfig } from '../../src/config/schema.js';
import { createEntryChecker } from '../../src/clients/check-entry.js';
import { createClientAdmin, type ClientAdmin } from '../../src/clients/client-admin.js';
import { hashSecret } from '../../src/sdk/hash.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import type { Store } from '../../src/store/store.js';
import { basic, firstPartyPlugins, postForm, repoRoot, startServer, type TestServer } from '../support/server.js';
import { realClockWithSkips } from '../support/clocks.js';

const config: UserConfig = {
  apiScopes: [{ name: 'api1.read' }],
  apiResources: [{ name: 'api1', scopes: ['api1.read'], secrets: [{ value: hashSecret('api1-secret') }] }],
  clients: [{ clientId: 'm2m', clientSecrets: [{ value: hashSecret('m2m-secret') }], allowedGrantTypes: ['client_credentials'], allowedScopes: ['api1.read'] }],
  clientStores: { refreshInterval: 1 },
};
const m2mLike = { allowedGrantTypes: ['client_credentials'], allowedScopes: ['api1.read'] };

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

// Real time, moved forward where a test would wait for a secret to expire.
let clock = realClockWithSkips();
async function start(store: Store = createMemoryStore(), extra: UserConfig = {}): Promise<{ server: TestServer; admin: ClientAdmin; store: Store }> {
  clock = realClockWithSkips();
  server = await startServer({ ...config, ...extra }, { store, clock });
  const admin = createClientAdmin({ records: store.clientRecords, checker: createEntryChecker(server.app.config, server.app.registry), config: server.app.config, clock: { now: () => Date.now() } });
  return { server, admin, store };
}

const token = (s: TestServer, id: string, secret: string) =>
  postForm(`${s.url}/connect/token`, { grant_type: 'client_credentials' }, { authorization: basic(id, secret) });

/** Polls until the answer has the status, or the bound (refresh interval plus slack) runs out. */
async function within(ms: number, attempt: () => Promise<{ status: number }>, status: number): Promise<{ status: number; body?: unknown }> {
  const until = Date.now() + ms;
  for (;;) {
    const reply = await attempt();
    if (reply.status === status || Date.now() > until) return reply;
    await new Promise((r) => setTimeout(r, 100));
  }
}

const eventsOf = (s: TestServer, type: string) => s.logs.filter((l) => (l.event as { type?: string } | undefined)?.type === type).map((l) => l.event);

describe('clients from the database', () => {
  it('a client added while the service runs authenticates within the refresh interval', async () => {
    const { server: s, admin } = await start();
    expect((await token(s, 'db-app', 'x')).status).toBe(401);
    const secret = await admin.add('client', 'db-app', m2mLike);
    expect(secret!.value).toMatch(/^[\w-]{43}$/);
    const reply = await within(2500, () => token(s, 'db-app', secret!.value), 200);
    expect(reply.status).toBe(200);
    // The store keeps only the hash.
    const record = await admin.show('client', 'db-app');
    expect(record.secrets.map((x) => x.value)).toEqual([hashSecret(secret!.value)]);
    // The last use is written (once a minute at most), without moving the version: after the answer, so wait for it (bounded).
    for (const deadline = Date.now() + 2500; (await admin.show('client', 'db-app')).lastUsedAt === undefined && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 10));
    expect((await admin.show('client', 'db-app')).lastUsedAt).toEqual(expect.any(Number));
  });

  it('a disabled client is refused like an unknown one and raises client.disabled_used', async () => {
    const { server: s, admin } = await start();
    const secret = (await admin.add('client', 'db-app', m2mLike))!.value;
    expect((await within(2500, () => token(s, 'db-app', secret), 200)).status).toBe(200);
    await admin.setDisabled('client', 'db-app', true);
    const refused = await within(2500, () => token(s, 'db-app', secret), 401);
    expect(refused).toMatchObject({ status: 401, body: { error: 'invalid_client', error_description: 'Client authentication failed.' } });
    expect(eventsOf(s, 'client.disabled_used')).toEqual([expect.objectContaining({ clientId: 'db-app', method: 'client_secret_basic', endpoint: 'token' })]);
    expect(s.logText()).toContain('client_secret_basic for \\"db-app\\": the client is disabled');
    await admin.setDisabled('client', 'db-app', false);
    expect((await within(2500, () => token(s, 'db-app', secret), 200)).status).toBe(200);
  });

  it('a rotation: both secrets work during the overlap; the old one afterwards raises client.expired_secret_used', async () => {
    const { server: s, admin } = await start();
    const old = (await admin.add('client', 'db-app', m2mLike))!.value;
    const fresh = await admin.addSecret('client', 'db-app', { expireOthersIn: 1 });
    expect((await within(2500, () => token(s, 'db-app', fresh.value), 200)).status).toBe(200);
    const record = await admin.show('client', 'db-app');
    expect(record.secrets.find((x) => x.id !== fresh.id)!.expiresAt).toEqual(expect.any(Number));
    // After the overlap (one second) the old secret is refused, and the event says it was an expired one.
    clock.advance(1.1);
    const refused = await token(s, 'db-app', old);
    expect(refused).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    expect(eventsOf(s, 'client.expired_secret_used')).toEqual([expect.objectContaining({ clientId: 'db-app', method: 'client_secret_basic', endpoint: 'token' })]);
    expect((await token(s, 'db-app', fresh.value)).status).toBe(200);
    // A wrong secret is no expired one: no such event.
    await token(s, 'db-app', 'wrong');
    expect(eventsOf(s, 'client.expired_secret_used')).toHaveLength(1);
  });

  it('an API resource from the database authenticates at introspection', async () => {
    const { server: s, admin } = await start();
    const secret = (await admin.add('apiResource', 'api2', { scopes: ['api1.read'] }))!.value;
    const reply = await within(2500, () => postForm(`${s.url}/connect/introspect`, { token: 'x'.repeat(40) }, { authorization: basic('api2', secret) }), 200);
    expect(reply).toMatchObject({ status: 200, body: { active: false } });
  });

  it('refuses at run time a database client whose id the config defines, with a log line', async () => {
    const store = createMemoryStore();
    const { server: s } = await start(store);
    // Written around the CLI, which would refuse it.
    await store.clientRecords.add({ kind: 'client', id: 'm2m', definition: m2mLike, disabled: false, createdAt: Date.now(), secrets: [{ id: 'a1', type: 'SharedSecret', value: hashSecret('db-secret'), description: undefined, createdAt: Date.now(), expiresAt: undefined }] });
    const until = Date.now() + 2500;
    while (!s.logText().includes('is refused') && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    const line = s.logs.find((l) => String(l.msg).includes('is refused'));
    expect(line).toMatchObject({ level: 50, clientStore: 'database', msg: 'client id "m2m" is defined by client store "config" and by "database": the one in "database" is refused' });
    expect((await token(s, 'm2m', 'm2m-secret')).status).toBe(200);
    expect((await token(s, 'm2m', 'db-secret')).status).toBe(401);
  });

  it('the admin refuses a client the config defines, and entries the config rules refuse', async () => {
    const { admin } = await start();
    await expect(admin.add('client', 'm2m', m2mLike)).rejects.toThrow('client "m2m" is defined in the config file: remove it there first');
    await expect(admin.add('client', 'bad', { allowedGrantTypes: ['client_credentials'], allowedScopes: ['api9'] })).rejects.toThrow(
      /client "bad" is not valid:\n {2}client "bad"\.allowedScopes\[0\]: unknown scope "api9"/,
    );
    await expect(admin.add('client', 'bad', { allowedGrantTypes: ['magic'], allowedScopes: ['api1.read'] })).rejects.toThrow(
      'client "bad".allowedGrantTypes[0]: unknown grant type "magic"',
    );
    // The service keeps keys for signing.idTokenAlgorithms only (here the default, RS256).
    await expect(admin.add('client', 'bad', { ...m2mLike, allowedIdentityTokenSigningAlgorithms: ['ES256'] })).rejects.toThrow(
      'client "bad".allowedIdentityTokenSigningAlgorithms[0]: "ES256" is not one of signing.idTokenAlgorithms (RS256); the service has keys for those only, so add it there',
    );
  });
});

describe('start-up with clients in the database', () => {
  const quiet = new Writable({ write: (_c, _e, done) => done() });
  const boot = async (store: Store): Promise<unknown> =>
    createApp(checkConfig({ ...config, store: 'memory', pluginDirs: [firstPartyPlugins] }, repoRoot), { store, logDestination: quiet }).then(
      async (app) => { await app.close(); return undefined; },
      (e: unknown) => e,
    );
  const secret = { id: 'a1', type: 'SharedSecret', value: hashSecret('s'), description: undefined, createdAt: 1, expiresAt: undefined };

  it('stops with CLIENT_CONFLICT when the database defines a config client', async () => {
    const store = createMemoryStore();
    await store.clientRecords.add({ kind: 'client', id: 'm2m', definition: m2mLike, disabled: false, createdAt: 1, secrets: [secret] });
    const err = await boot(store);
    expect(err).toBeInstanceOf(BootError);
    expect(err).toMatchObject({ code: 'CLIENT_CONFLICT', problems: ['client id "m2m" is defined by client store "config" and by "database" (remove it from one of them)'] });
  });

  it('stops with CONFIG_INVALID naming the stored entry the config rules refuse', async () => {
    const store = createMemoryStore();
    await store.clientRecords.add({ kind: 'client', id: 'odd', definition: { ...m2mLike, accessTokenLifetime: -1 }, disabled: false, createdAt: 1, secrets: [{ ...secret, value: 'not-a-hash' }] });
    const err = await boot(store);
    expect(err).toMatchObject({ code: 'CONFIG_INVALID' });
    expect((err as BootError).problems).toEqual([expect.stringMatching(/^client store "database": client "odd"\.accessTokenLifetime: /)]);
  });
});
