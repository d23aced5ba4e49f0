/**
 * Which plugin folders load: the package's own (by name, `packagePlugins`), then the
 * deployment's `pluginDirs`; a default `./plugins` that does not exist is no error, a listed one
 * is; a deployment folder named like a loaded package plugin stops start-up, unless it is that
 * very folder.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BootError } from '../../src/config/boot-error.js';
import { checkConfig } from '../../src/config/load.js';
import { validateUserConfig } from '../../src/config/validate.js';
import { packagePluginDir, pluginFolders } from '../../src/plugin-host/load-plugins.js';
import { firstPartyPlugins } from '../support/server.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-package-plugins-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const folder = (name: string, parent = join(dir, 'plugins')): string => {
  const at = join(parent, name);
  mkdirSync(at, { recursive: true });
  writeFileSync(join(at, 'index.ts'), `export default { name: '${name}' };\n`);
  return at;
};
const names = (config: ReturnType<typeof checkConfig>): string[] => pluginFolders(config).map((f) => `${f.name}@${f.dir}`);

describe('plugin folders of a deployment', () => {
  it('are the six package plugins, from the package, when the default ./plugins does not exist', () => {
    const config = checkConfig({}, join(dir, 'nowhere'));
    expect(packagePluginDir).toBe(firstPartyPlugins);
    expect(names(config)).toEqual(['delegation', 'mutual-tls', 'private-key-jwt', 'shared-secret', 'token-exchange', 'workload-identity'].map((n) => `${n}@${join(firstPartyPlugins, n)}`));
  });

  it('add the deployment folders after the chosen package plugins', () => {
    const own = folder('hello-grant', join(dir, 'a', 'plugins'));
    const config = checkConfig({ packagePlugins: ['shared-secret'] }, join(dir, 'a'));
    expect(names(config)).toEqual([`shared-secret@${join(firstPartyPlugins, 'shared-secret')}`, `hello-grant@${own}`]);
  });

  it('stop start-up for a listed plugin dir that does not exist', () => {
    const config = checkConfig({ pluginDirs: ['./missing'] }, dir);
    expect(() => pluginFolders(config)).toThrow(new BootError('PLUGIN_DIR_MISSING', `pluginDirs: "${join(dir, 'missing')}" is not a directory (fix the path or create it)`));
  });

  it('load a link to a package plugin once (this repository\'s own ./plugins is the package\'s)', () => {
    mkdirSync(join(dir, 'b', 'plugins'), { recursive: true });
    symlinkSync(join(firstPartyPlugins, 'delegation'), join(dir, 'b', 'plugins', 'delegation'), 'dir');
    expect(names(checkConfig({ packagePlugins: ['delegation'] }, join(dir, 'b')))).toEqual([`delegation@${join(firstPartyPlugins, 'delegation')}`]);
    expect(names(checkConfig({}, process.cwd())).length).toBe(6);
  });

  it('refuse a deployment folder named like a loaded package plugin, and take it when the package one is left out', () => {
    const mine = folder('shared-secret', join(dir, 'c', 'plugins'));
    let err: unknown;
    try {
      pluginFolders(checkConfig({}, join(dir, 'c')));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(BootError);
    expect((err as BootError).code).toBe('PLUGIN_CONFLICT');
    expect((err as BootError).message).toBe(
      `two plugins are named "shared-secret": ${join(firstPartyPlugins, 'shared-secret')} (in the package) and ${mine}; rename yours (folder and name), or leave "shared-secret" out of packagePlugins to use yours instead`,
    );
    const without = checkConfig({ packagePlugins: ['private-key-jwt'] }, join(dir, 'c'));
    expect(names(without)).toEqual([`private-key-jwt@${join(firstPartyPlugins, 'private-key-jwt')}`, `shared-secret@${mine}`]);
  });

  it('name only package plugins that exist, each once', () => {
    expect(validateUserConfig({ packagePlugins: ['shared-secrets', 'delegation', 'delegation'] })).toEqual([
      'packagePlugins[0]: unknown package plugin "shared-secrets" (did you mean "shared-secret"?) (known: shared-secret, private-key-jwt, delegation, token-exchange, mutual-tls, workload-identity)',
      'packagePlugins[2]: "delegation" is listed twice',
    ]);
  });
});
