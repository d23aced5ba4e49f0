/**
 * Finding and reading the config (cosmiconfig, module name `svc`, TypeScript through jiti):
 * each place a config can live, an explicit path, SVC_CONFIG, and what a broken one gives.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BootError } from '../../src/config/boot-error.js';
import { loadConfig } from '../../src/config/load.js';

let dir: string;
let savedEnv: string | undefined;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-config-'));
  savedEnv = process.env.SVC_CONFIG;
  delete process.env.SVC_CONFIG;
});

afterEach(() => {
  if (savedEnv === undefined) delete process.env.SVC_CONFIG;
  else process.env.SVC_CONFIG = savedEnv;
  rmSync(dir, { recursive: true, force: true });
});

function write(name: string, content: string): string {
  const path = join(dir, name);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, content);
  return path;
}

async function loadError(options: Parameters<typeof loadConfig>[0]): Promise<BootError> {
  const err: unknown = await loadConfig(options).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(BootError);
  return err as BootError;
}

describe('loadConfig finds', () => {
  it('svc.config.ts with a plain export default object (no imports, TypeScript syntax)', async () => {
    const path = write('svc.config.ts', 'const port: number = 5101;\nexport default { port, logLevel: "warn" as const };\n');
    const { filepath, config } = await loadConfig({ cwd: dir });
    expect(filepath).toBe(path);
    expect(config.port).toBe(5101);
    expect(config.issuer).toBe('http://localhost:5101');
    expect(config.logLevel).toBe('warn');
  });

  it("svc.config.ts using defineConfig from 'svc/sdk', outside the repository", async () => {
    write(
      'svc.config.ts',
      "import { defineConfig, hashSecret } from 'svc/sdk';\n" +
        'export default defineConfig({\n' +
        '  port: 5102,\n' +
        "  apiScopes: [{ name: 'api1.read' }],\n" +
        "  clients: [{ clientId: 'm2m', clientSecrets: [{ value: hashSecret('secret') }], allowedGrantTypes: ['client_credentials'], allowedScopes: ['api1.read'] }],\n" +
        '});\n',
    );
    const { config } = await loadConfig({ cwd: dir });
    expect(config.port).toBe(5102);
    expect(config.clients[0]!.clientSecrets[0]!.value).toBe('K7gNU3sdo+OL0wNhqoVWhr3g6s1xYv72ol/pe/Unols=');
  });

  it('.svcrc.json', async () => {
    const path = write('.svcrc.json', JSON.stringify({ port: 5103 }));
    expect(await loadConfig({ cwd: dir })).toMatchObject({ filepath: path, config: { port: 5103 } });
  });

  it('.svcrc.yaml', async () => {
    const path = write('.svcrc.yaml', 'port: 5104\nhost: 0.0.0.0\napiScopes:\n  - name: api1.read\n');
    const { filepath, config } = await loadConfig({ cwd: dir });
    expect(filepath).toBe(path);
    expect(config).toMatchObject({ port: 5104, host: '0.0.0.0', apiScopes: [{ name: 'api1.read' }] });
  });

  it('a svc key in package.json', async () => {
    const path = write('package.json', JSON.stringify({ name: 'deployment', version: '1.0.0', svc: { port: 5105 } }));
    expect(await loadConfig({ cwd: dir })).toMatchObject({ filepath: path, config: { port: 5105 } });
  });

  it('nothing in a package.json without a svc key', async () => {
    write('package.json', JSON.stringify({ name: 'deployment' }));
    expect((await loadError({ cwd: dir })).code).toBe('CONFIG_NOT_FOUND');
  });
});

describe('loadConfig with a chosen file', () => {
  it('loads an explicit path relative to cwd and resolves pluginDirs against that file’s folder', async () => {
    write('svc.config.ts', 'export default { port: 5106 };\n');
    const path = write('deploy/prod.json', JSON.stringify({ port: 5107, pluginDirs: ['./extra-plugins'] }));
    const { filepath, config } = await loadConfig({ cwd: dir, path: 'deploy/prod.json' });
    expect(filepath).toBe(path);
    expect(config.port).toBe(5107);
    expect(config.pluginDirs).toEqual([join(dir, 'deploy', 'extra-plugins')]);
    expect(config.configDir).toBe(join(dir, 'deploy'));
  });

  it('loads the file SVC_CONFIG names', async () => {
    write('svc.config.ts', 'export default { port: 5108 };\n');
    const path = write('env/chosen.config.ts', 'export default { port: 5109 };\n');
    process.env.SVC_CONFIG = path;
    expect(await loadConfig({ cwd: dir })).toMatchObject({ filepath: path, config: { port: 5109 } });
  });

  it('prefers an explicit path over SVC_CONFIG', async () => {
    process.env.SVC_CONFIG = write('env.json', JSON.stringify({ port: 5110 }));
    const path = write('flag.json', JSON.stringify({ port: 5111 }));
    expect(await loadConfig({ cwd: dir, path })).toMatchObject({ filepath: path, config: { port: 5111 } });
  });
});

describe('loadConfig fails with a BootError', () => {
  it('CONFIG_NOT_FOUND when the folder holds no config, saying how to make one', async () => {
    const err = await loadError({ cwd: dir });
    expect(err.code).toBe('CONFIG_NOT_FOUND');
    expect(err.message).toContain(dir);
    expect(err.message).toContain('svc.config.ts');
  });

  it('CONFIG_NOT_FOUND naming a chosen file that does not exist', async () => {
    const err = await loadError({ cwd: dir, path: 'missing.config.ts' });
    expect(err.code).toBe('CONFIG_NOT_FOUND');
    expect(err.message).toContain(join(dir, 'missing.config.ts'));
  });

  it('CONFIG_LOAD_FAILED for a config file with a syntax error', async () => {
    write('svc.config.ts', 'export default { port: 5112,, };\n');
    const err = await loadError({ cwd: dir });
    expect(err.code).toBe('CONFIG_LOAD_FAILED');
    expect(err.message).toMatch(/^could not load the config: /);
  });

  it('CONFIG_LOAD_FAILED for malformed JSON', async () => {
    write('.svcrc.json', '{ "port": 5113, }');
    expect((await loadError({ cwd: dir })).code).toBe('CONFIG_LOAD_FAILED');
  });

  it('CONFIG_INVALID naming the field for a config that loads but is wrong', async () => {
    write('svc.config.ts', "export default { port: 'five thousand' };\n");
    const err = await loadError({ cwd: dir });
    expect(err.code).toBe('CONFIG_INVALID');
    expect(err.problems).toEqual(['port: expected a whole number from 0 to 65535, got "five thousand"']);
  });
});
