/**
 * Every way a plugin folder can be broken stops start-up (never logged-and-skipped) with a
 * BootError whose code and message name the folder or plugin and the problem.
 * One fixture plugin dir per case under test/fixtures/plugins/<case>/.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BootErrorCode } from '../../src/config/boot-error.js';
import { fixturePluginDir } from '../e2e/plugin-dirs.js';
import { bootError } from '../support/boot-error.js';

const bootErrorFrom = (pluginDirs: string[]) => bootError(pluginDirs, fixturePluginDir('.'));
const folder = (caseName: string, plugin: string) => join(fixturePluginDir(caseName), plugin);

// The known-member lists grow as the SDK does, so those two messages are matched up to the list's end.
describe.each<[string, string, BootErrorCode, string | RegExp]>([
  ['no-index', 'empty-folder', 'PLUGIN_INVALID', 'no index.ts, index.mts, index.js, index.mjs found'],
  [
    'not-an-object',
    'exports-function',
    'PLUGIN_INVALID',
    /^the index must default-export a plugin object \{ name, options\?, secretParsers\?, secretValidators\?, extensionGrants\?(, \w+\?)* \}, found function$/,
  ],
  ['name-mismatch', 'name-mismatch', 'PLUGIN_INVALID', 'name must equal the folder name "name-mismatch", found "some-other-name"'],
  [
    'unknown-member',
    'unknown-member',
    'PLUGIN_INVALID',
    /^unknown member "extensionGrant" \(known: name, description, options, secretParsers, secretValidators, extensionGrants(, \w+)*\)$/,
  ],
  ['factory-not-function', 'factory-not-function', 'PLUGIN_INVALID', 'secretParsers[0] must be a factory function (deps) => ..., found object'],
  ['factories-not-array', 'factories-not-array', 'PLUGIN_INVALID', 'extensionGrants must be an array of factory functions, found function'],
])('a plugin folder that is broken: %s', (caseName, plugin, code, problem) => {
  it(`stops start-up with ${code} naming the folder and the problem`, async () => {
    const err = await bootErrorFrom([fixturePluginDir(caseName)]);
    expect(err.code).toBe(code);
    const prefix = `plugin folder ${folder(caseName, plugin)}: `;
    expect(err.message.startsWith(prefix), err.message).toBe(true);
    if (typeof problem === 'string') expect(err.message.slice(prefix.length)).toBe(problem);
    else expect(err.message.slice(prefix.length)).toMatch(problem);
  });
});

describe.each<[string, string, string]>([
  ['factory-throws', 'factory-throws', 'extensionGrants[0] failed to start: option "audience" is required'],
  ['malformed-parser', 'malformed-parser', 'secretParsers[0]: authenticationMethod must be a non-empty string'],
  ['malformed-validator', 'malformed-validator', 'secretValidators[0]: parsedSecretTypes must be a non-empty array of strings'],
  ['malformed-grant', 'malformed-grant', 'extensionGrants[0]: validate must be a function'],
  ['malformed-signature-verifier', 'malformed-signature-verifier', 'clientSignatureVerifiers[0]: verify must be a function'],
])('a plugin whose factory misbehaves: %s', (caseName, plugin, problem) => {
  it('stops start-up with PLUGIN_INVALID naming the plugin, its folder and the factory', async () => {
    const err = await bootErrorFrom([fixturePluginDir(caseName)]);
    expect(err.code).toBe('PLUGIN_INVALID');
    expect(err.message).toBe(`plugin "${plugin}" (${folder(caseName, plugin)}): ${problem}`);
  });
});

describe('conflicts between plugins', () => {
  it('stops start-up when two plugins claim one grant type, naming both', async () => {
    const err = await bootErrorFrom([fixturePluginDir('duplicate-grant')]);
    expect(err.code).toBe('PLUGIN_CONFLICT');
    expect(err.message).toBe('plugins "alpha-grant" and "beta-grant" both provide the grant type "urn:test:same-grant" (remove one)');
  });

  it('stops start-up when a plugin claims the standard client_credentials grant', async () => {
    const err = await bootErrorFrom([fixturePluginDir('standard-grant-conflict')]);
    expect(err.code).toBe('PLUGIN_CONFLICT');
    expect(err.message).toContain('"cc-override"');
    expect(err.message).toContain('both provide the grant type "client_credentials"');
  });

  it('stops start-up when two plugin dirs hold plugins of the same name, naming both folders', async () => {
    const err = await bootErrorFrom([fixturePluginDir('valid'), fixturePluginDir('valid')]);
    expect(err.code).toBe('PLUGIN_CONFLICT');
    expect(err.message).toBe(
      `two plugins are named "magic-word": ${folder('valid', 'magic-word')} and ${folder('valid', 'magic-word')} (rename or remove one)`,
    );
  });
});

describe('plugins that cannot be loaded', () => {
  it('stops start-up with PLUGIN_LOAD_FAILED naming the folder of a plugin with a syntax error', async () => {
    const err = await bootErrorFrom([fixturePluginDir('syntax-error')]);
    expect(err.code).toBe('PLUGIN_LOAD_FAILED');
    expect(err.message).toMatch(new RegExp(`^plugin folder ${escape(folder('syntax-error', 'broken-syntax'))}: could not be loaded: .+`));
    expect(err.cause).toBeInstanceOf(Error);
  });

  it('stops start-up with PLUGIN_DIR_MISSING for a plugin dir that does not exist, naming it', async () => {
    const missing = fixturePluginDir('no-such-dir');
    const err = await bootErrorFrom([missing]);
    expect(err.code).toBe('PLUGIN_DIR_MISSING');
    expect(err.message).toBe(`pluginDirs: "${missing}" is not a directory (fix the path or create it)`);
  });
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
