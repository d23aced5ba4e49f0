/**
 * A plugin declares the client fields it reads (`Plugin.clientFields`, issue 32): a stranger's
 * plugin folder (`test/fixtures/plugins/client-fields/billing`) declares `costCentre` and
 * `billedApis`. The host keeps them on every client as written, the plugin checks them at
 * start-up and for every stored client, and a field no loaded plugin declares is refused as
 * unknown with the closest known name, as the service's own fields are.
 */
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app/create-app.js';
import { systemClock } from '../../src/app/system-clock.js';
import { createEntryChecker } from '../../src/clients/check-entry.js';
import { checkConfig } from '../../src/config/load.js';
import { billedApis, costCentre } from '../fixtures/plugins/client-fields/billing/index.js';
import { fixturePluginDir } from '../e2e/plugin-dirs.js';
import { bootErrorFor } from '../support/boot-error.js';
import { memoryStoreWithTestKeys } from '../support/test-keys.js';

const pluginDirs = [fixturePluginDir('client-fields')];
const model = { apiScopes: [{ name: 'api1.read' }], apiResources: [{ name: 'api1', scopes: ['api1.read'] }] };
const client = (patch: Record<string, unknown>) => ({ clientId: 'billed', requireClientSecret: false, allowedGrantTypes: [], allowedScopes: ['api1.read'], ...patch });
const raw = (patch: Record<string, unknown>, dirs = pluginDirs) =>
  ({ store: 'memory', packagePlugins: [], pluginDirs: dirs, ...model, clients: [client(patch)] });
const quiet = new Writable({ write: (_chunk, _enc, done) => done() });

async function start(patch: Record<string, unknown>): Promise<App> {
  const config = checkConfig(raw(patch), process.cwd());
  const store = await memoryStoreWithTestKeys(config, systemClock);
  return createApp(config, { logDestination: quiet, ...(store ? { store } : {}) });
}

describe('a client field a plugin declares, in the config file', () => {
  let app: App;
  beforeAll(async () => {
    app = await start({ costCentre: 'CC-1234', billedApis: ['api1'] });
  });
  afterAll(() => app?.close());

  it('starts with a good value, which the plugin reads through its declaration', () => {
    const [billed] = app.config.clients;
    expect(costCentre.read(billed!)).toBe('CC-1234');
    expect(billedApis.read(billed!)).toEqual(['api1']);
  });

  it('gives a client that leaves the field out the declared default', async () => {
    const other = await start({});
    try {
      expect(costCentre.read(other.config.clients[0]!)).toBe('CC-0000');
      expect(billedApis.read(other.config.clients[0]!)).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it('refuses a bad value at start-up, naming the field, the problem and the plugin', async () => {
    const err = await bootErrorFor(raw({ costCentre: 'twelve', billedApis: ['api1', 'api9'] }), process.cwd());
    expect(err.code).toBe('CONFIG_INVALID');
    expect(err.problems).toEqual([
      'clients[0].costCentre: expected "CC-" and up to 8 digits such as "CC-1234", found "twelve" (plugin "billing")',
      'clients[0].billedApis[1]: unknown API resource "api9" (known: api1) (plugin "billing")',
    ]);
  });

  it('refuses a field no plugin declares as unknown, with the closest name among the service\'s and the plugins\' fields', async () => {
    const err = await bootErrorFor(raw({ costCenter: 'CC-1', alowedScopes: [] }), process.cwd());
    expect(err.code).toBe('CONFIG_INVALID');
    expect(err.problems).toEqual([
      expect.stringMatching(/^clients\[0\]\.costCenter: unknown field \(did you mean "costCentre"\?\) \(known: clientId, clientName, .*, requireResourceIndicator, costCentre, billedApis\)$/),
      expect.stringMatching(/^clients\[0\]\.alowedScopes: unknown field \(did you mean "allowedScopes"\?\) \(known: clientId, /),
    ]);
  });

  it('refuses the plugin\'s field as unknown when the plugin is not loaded', async () => {
    const err = await bootErrorFor(raw({ costCentre: 'CC-1' }, []), process.cwd());
    expect(err.problems).toEqual([expect.stringMatching(/^clients\[0\]\.costCentre: unknown field \(known: clientId, .*, requireResourceIndicator\)$/)]);
  });

  it('judges a stored client (svc clients add --definition, a client-store plugin) the same way', () => {
    const checker = createEntryChecker(app.config, app.registry);
    expect(checker.client(client({ clientId: 'stored', costCentre: 'CC-7', billedApis: ['api1'] }), [])).toMatchObject({
      ok: true, value: { clientId: 'stored', pluginFields: { costCentre: 'CC-7', billedApis: ['api1'] } },
    });
    expect(checker.client(client({ clientId: 'stored', costCentre: 7 }), [])).toEqual({
      ok: false, problems: ['client "stored".costCentre: expected "CC-" and up to 8 digits such as "CC-1234", found 7 (plugin "billing")'],
    });
    // An API resource the stores hold counts as much as the config's.
    const fromStore = [{ name: 'api2', scopes: [], secrets: [] }];
    expect(checker.client(client({ clientId: 'stored', billedApis: ['api2'] }), fromStore)).toMatchObject({ ok: true });
    expect(checker.client(client({ clientId: 'stored', costCentr: 'CC-7' }), [])).toEqual({
      ok: false, problems: [expect.stringMatching(/^client "stored"\.costCentr: unknown field \(did you mean "costCentre"\?\) \(known: /)],
    });
  });
});

describe('declaring client fields', () => {
  const configWith = (dir: string, patch: Record<string, unknown> = {}) =>
    ({ store: 'memory', packagePlugins: [], pluginDirs: [fixturePluginDir(dir)], ...model, clients: [client(patch)] });

  it('lets two plugins that read one field both declare it, and runs each one\'s check', async () => {
    const tooHigh = await bootErrorFor(configWith('client-field-shared', { tier: 4 }), process.cwd());
    expect(tooHigh.problems).toEqual(['clients[0].tier: expected a tier up to 3, found 4 (plugin "reader-one")']);
    const fraction = await bootErrorFor(configWith('client-field-shared', { tier: 2.5 }), process.cwd());
    expect(fraction.problems).toEqual(['clients[0].tier: expected a whole number, found 2.5 (plugin "reader-two")']);
  });

  it('stops start-up when two plugins declare one field with different defaults, naming both', async () => {
    const err = await bootErrorFor(configWith('client-field-conflict'), process.cwd());
    expect(err.code).toBe('PLUGIN_CONFLICT');
    expect(err.message).toBe('plugins "ledger-one" and "ledger-two" both declare the client field "ledger" with different defaults ("CC-0000" and "CC-9999"): make them agree');
  });

  it('stops start-up when two plugins declare one field with different JSON Schemas, naming both', async () => {
    const err = await bootErrorFor(configWith('client-field-schema-conflict'), process.cwd());
    expect(err.code).toBe('PLUGIN_CONFLICT');
    expect(err.message).toBe('plugins "region-one" and "region-two" both declare the client field "region" with different JSON Schemas ({"type":"string"} and {"type":"array","items":{"type":"string"}}): make them agree');
  });

  it('stops start-up when a plugin declares a field the service declares', async () => {
    const err = await bootErrorFor(configWith('client-field-shadow'), process.cwd());
    expect(err.code).toBe('PLUGIN_CONFLICT');
    expect(err.message).toBe('plugin "shadow" declares the client field "allowedScopes", a field the service declares (rename it)');
  });

  it('stops start-up on a client field not made by defineClientField, naming the folder', async () => {
    const err = await bootErrorFor(configWith('client-field-malformed'), process.cwd());
    expect(err.code).toBe('PLUGIN_INVALID');
    expect(err.message).toBe(`plugin folder ${join(fixturePluginDir('client-field-malformed'), 'malformed-field')}: clientFields[0] must be a client field made by defineClientField(name, { description, check, default }), found object`);
  });
});
