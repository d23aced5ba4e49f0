/**
 * What a plugin's factories receive: one frozen set of the dependencies the SDK documents, built
 * once per plugin — never the service's container, its key ring, its token issuer or a store that
 * can reach the service's own records.
 */
import { describe, expect, it } from 'vitest';
import { checkConfig } from '../../src/config/load.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import { createPluginRegistrar } from '../../src/plugin-host/plugin-registry.js';
import { endpointUrls } from '../../src/endpoints/urls.js';
import { BootError } from '../../src/config/boot-error.js';
import { OptionsError, type Plugin, type PluginDependencies, type ResourceOwnerValidator } from '../../src/sdk/index.js';

const config = checkConfig({ issuer: 'https://svc.example', plugins: { recorder: { word: 'please' } } }, process.cwd());
const silent = { debug() {}, info() {}, warn() {}, error() {}, child: () => silent };
const clock = { now: () => 1_900_000_000_000 };
const users: ResourceOwnerValidator = { validate: async () => undefined, findBySubject: async () => undefined };

function registrar() {
  const store = createMemoryStore(clock);
  const r = createPluginRegistrar({
    config, urls: endpointUrls(config.issuer), logger: silent, clock, store,
    tokenValidator: { validateAccessToken: async () => ({ active: false, reason: 'test' }) }, configUsers: users,
  });
  return { store, r };
}

/** A plugin whose every factory records the deps it was given. */
function recorder(extra: Partial<Plugin> = {}): { plugin: Plugin; seen: PluginDependencies[] } {
  const seen: PluginDependencies[] = [];
  const sink = (deps: PluginDependencies) => (seen.push(deps), { handle() {} });
  return { plugin: { name: 'recorder', eventSinks: [sink, sink], ...extra }, seen };
}

describe('plugin dependencies', () => {
  it('are exactly what the SDK documents, frozen, and the same object for every factory of the plugin', async () => {
    const { r } = registrar();
    const { plugin, seen } = recorder();
    await r.registerPlugin(plugin, 'test');
    expect(seen).toHaveLength(2);
    expect(seen[0]).toBe(seen[1]);
    const deps = seen[0]!;
    expect(Object.keys(deps).sort()).toEqual(['clock', 'config', 'logger', 'options', 'pluginOptions', 'resourceOwnerValidator', 'store', 'tokenValidator', 'urls']);
    expect(Object.isFrozen(deps)).toBe(true);
    expect(Object.keys(deps.config).sort()).toEqual(['apiResources', 'apiScopes', 'clients', 'identityResources', 'issuer']);
    expect(Object.isFrozen(deps.config)).toBe(true);
    expect(Object.keys(deps.store).sort()).toEqual(['add', 'consume', 'get', 'remove']);
    expect(deps.pluginOptions).toEqual({ word: 'please' });
  });

  it("give a store of the plugin's own records: the service's records are out of its reach", async () => {
    const { r, store } = registrar();
    const { plugin, seen } = recorder();
    await r.registerPlugin(plugin, 'test');
    const own = seen[0]!.store;
    const record = { key: 'rt-1', type: 'note', clientId: 'c', subjectId: undefined, sessionId: undefined, createdAt: 0, expiresAt: clock.now() + 60_000, consumedAt: undefined, data: '{}' };
    await store.add({ ...record, type: 'refresh_token' });
    expect(await own.get('rt-1')).toBeUndefined();
    expect(await own.consume('rt-1', clock.now())).toBeUndefined();
    await own.remove('rt-1');
    expect(await store.get('rt-1')).toMatchObject({ type: 'refresh_token', consumedAt: undefined });
    await own.add(record);
    expect(await own.get('rt-1')).toMatchObject({ key: 'rt-1', type: 'note' });
    expect(await store.get('rt-1')).toMatchObject({ type: 'refresh_token' });
  });

  it("run the plugin's options parser once and hand every factory its result", async () => {
    const { r } = registrar();
    let runs = 0;
    const { plugin, seen } = recorder({ options: (raw) => (runs++, { word: String(raw.word).toUpperCase() }) });
    await r.registerPlugin(plugin, 'test');
    expect(runs).toBe(1);
    expect(seen[0]!.options).toEqual({ word: 'PLEASE' });
  });

  it("parse the options once for a plugin that also provides the user store, whose other parts see that store", async () => {
    const { r } = registrar();
    let runs = 0;
    const own: ResourceOwnerValidator = { validate: async () => undefined, findBySubject: async () => undefined };
    const { plugin, seen } = recorder({ options: (raw) => (runs++, raw), resourceOwnerValidator: () => own });
    await r.useResourceOwnerValidator(plugin, 'test');
    await r.registerPlugin(plugin, 'test');
    expect(runs).toBe(1);
    expect(seen[0]!.resourceOwnerValidator).toBe(r.resourceOwnerValidator());
    expect(r.resourceOwnerValidator()).not.toBe(users);
  });

  it("give a sign-in page the plugin's frozen deps: options parsed once, and the user store in force", async () => {
    const { r } = registrar();
    let runs = 0;
    const pages: PluginDependencies[] = [];
    const own: ResourceOwnerValidator = { validate: async () => undefined, findBySubject: async () => undefined };
    const users = recorder({ resourceOwnerValidator: () => own });
    const { plugin, seen } = recorder({
      options: (raw) => (runs++, raw),
      signInPage: (deps) => (pages.push(deps), { render: () => '<!doctype html>' }),
    });
    await r.useResourceOwnerValidator({ ...users.plugin, name: 'users' }, 'test');
    await r.useSignInPage(plugin, 'test');
    await r.registerPlugin(plugin, 'test');
    expect(runs).toBe(1);
    expect(pages).toHaveLength(1);
    expect(pages[0]).toBe(seen[0]);
    expect(Object.isFrozen(pages[0])).toBe(true);
    expect(pages[0]!.resourceOwnerValidator).toBe(r.resourceOwnerValidator());
    expect(r.signInPage()?.render?.({ lang: 'en', action: '/', hiddenFields: [], clientId: 'c', clientName: 'C' })).toBe('<!doctype html>');
  });

  it('stop start-up on a bad option, naming plugins.<name>.<field>', async () => {
    const { r } = registrar();
    const { plugin } = recorder({
      options: (raw) => {
        if (raw.word !== 'abracadabra') throw new OptionsError('word', `expected "abracadabra", found ${JSON.stringify(raw.word)}`);
        return raw;
      },
    });
    const err = await r.registerPlugin(plugin, 'test').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BootError);
    expect(err).toMatchObject({ code: 'CONFIG_INVALID', message: 'plugins.recorder.word: expected "abracadabra", found "please" (plugin "recorder", test)' });
  });
});
