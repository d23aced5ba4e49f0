/**
 * A client field a plugin declares (`Plugin.clientFields`, issue 32) is set on a database client
 * with `svc clients add --definition`, and judged there as in the config file: checked by the
 * plugin that declares it, refused as unknown (with the closest name) when no plugin does.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import { openSqlite } from '../../src/store/sql/sqlite.js';
import { fixturePluginDir } from '../e2e/plugin-dirs.js';
import { firstPartyPlugins } from '../support/server.js';
import { testKeyFiles } from '../support/test-keys.js';

let dir: string;
let configFile: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-plugin-fields-cli-'));
  mkdirSync(join(dir, 'plugins'));
  symlinkSync(join(firstPartyPlugins, 'shared-secret'), join(dir, 'plugins', 'shared-secret'), 'dir');
  symlinkSync(join(firstPartyPlugins, 'delegation'), join(dir, 'plugins', 'delegation'), 'dir');
  symlinkSync(join(fixturePluginDir('client-fields'), 'billing'), join(dir, 'plugins', 'billing'), 'dir');
  configFile = join(dir, 'svc.config.json');
  writeFileSync(configFile, JSON.stringify({
    signing: { keys: testKeyFiles(dir) },
    store: 'sqlite:./data/svc.db',
    apiScopes: [{ name: 'api1.read' }, { name: 'backend.read' }],
    apiResources: [{ name: 'api1', scopes: ['api1.read'] }],
  }));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function svc(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((stdout += String(chunk)), true));
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((stderr += String(chunk)), true));
  try {
    const code = await main([...args, '--config', configFile]);
    return { code, stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}

async function storedDefinition(id: string): Promise<unknown> {
  const store = openSqlite(join(dir, 'data', 'svc.db'));
  try {
    return (await store.clientRecords.get('client', id))?.definition;
  } finally {
    await store.close();
  }
}

describe('svc clients add --definition with a plugin\'s client field', () => {
  it('stores a good value', async () => {
    const run = await svc('clients', 'add', 'billed', '--grant', 'client_credentials', '--scope', 'api1.read', '--definition', '{"costCentre": "CC-42", "billedApis": ["api1"]}');
    expect(run.stdout).toMatch(/^client "billed" added to the database\.\n/);
    expect(run.code).toBe(0);
    expect(await storedDefinition('billed')).toMatchObject({ costCentre: 'CC-42', billedApis: ['api1'] });
  });

  it('refuses a bad value, naming the field and the plugin', async () => {
    const run = await svc('clients', 'add', 'odd', '--grant', 'client_credentials', '--scope', 'api1.read', '--definition', '{"costCentre": "twelve", "billedApis": ["api9"]}');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('costCentre: expected "CC-" and up to 8 digits such as "CC-1234", found "twelve" (plugin "billing")');
    expect(run.stderr).toContain('billedApis[0]: unknown API resource "api9" (known: api1) (plugin "billing")');
    expect(await storedDefinition('odd')).toBeUndefined();
  });

  it('refuses a field no plugin declares as unknown, with the closest name', async () => {
    const run = await svc('clients', 'add', 'typo', '--grant', 'client_credentials', '--scope', 'api1.read', '--definition', '{"costCenter": "CC-1"}');
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/costCenter: unknown field \(did you mean "costCentre"\?\) \(known: clientId, .*, costCentre, billedApis\)/);
    expect(await storedDefinition('typo')).toBeUndefined();
  });
});

describe('svc clients with the flag of a package plugin\'s client field (issue 32)', () => {
  it('sets allowedSubjectTokenAudiences with --allowed-subject-token-audience, repeatable', async () => {
    const run = await svc('clients', 'add', 'api1.client', '--grant', 'delegation', '--scope', 'backend.read', '--allowed-subject-token-audience', 'api1');
    expect(run.stderr).toBe('svc: the secret is shown this once; only its hash is stored.\n');
    expect(run.code).toBe(0);
    expect(await storedDefinition('api1.client')).toMatchObject({ allowedGrantTypes: ['delegation'], allowedSubjectTokenAudiences: ['api1'] });
  });

  it('refuses an unknown API resource in the words of the flag', async () => {
    const run = await svc('clients', 'update', 'api1.client', '--allowed-subject-token-audience', 'payroll');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('--allowed-subject-token-audience payroll: unknown API resource "payroll" (known: api1) (plugin "delegation")');
    expect(await storedDefinition('api1.client')).toMatchObject({ allowedSubjectTokenAudiences: ['api1'] });
  });

  it('names the flag in the help', async () => {
    const run = await svc('help', 'clients');
    expect(run.stdout).toContain('--allowed-subject-token-audience');
  });
});

describe('svc check-config with a plugin\'s client field (issues 32, 39)', () => {
  it('names the field path, the problem and the plugin of a bad value', async () => {
    const bad = join(dir, 'bad.config.json');
    writeFileSync(bad, JSON.stringify({
      signing: { keys: testKeyFiles(dir) },
      store: 'memory',
      apiScopes: [{ name: 'backend.read' }],
      apiResources: [{ name: 'api1', scopes: ['backend.read'] }],
      clients: [{ clientId: 'api1.client', requireClientSecret: false, allowedGrantTypes: ['delegation'], allowedScopes: ['backend.read'], allowedSubjectTokenAudiences: ['api1', 'payroll'] }],
    }));
    let stderr = '';
    const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((stderr += String(chunk)), true));
    try {
      expect(await main(['check-config', '--config', bad])).toBe(1);
    } finally {
      err.mockRestore();
    }
    expect(stderr).toContain('clients[0].allowedSubjectTokenAudiences[1]: unknown API resource "payroll" (known: api1) (plugin "delegation")');
  });
});
