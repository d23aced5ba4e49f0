/**
 * A plugin's user store (`resourceOwnerValidator`) is checked like every other plugin part:
 * the wrong shape, a factory that builds the wrong thing, or two user stores stop start-up.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixturePluginDir } from '../e2e/plugin-dirs.js';
import { bootError } from '../support/boot-error.js';

const bootErrorOf = (caseName: string) => bootError([fixturePluginDir(caseName)], fixturePluginDir('.'));

describe('a broken user store plugin', () => {
  it('that exports the user store instead of a factory: PLUGIN_INVALID naming the folder', async () => {
    const err = await bootErrorOf('user-store-not-function');
    expect(err.code).toBe('PLUGIN_INVALID');
    expect(err.message).toBe(
      `plugin folder ${join(fixturePluginDir('user-store-not-function'), 'user-store-not-function')}: resourceOwnerValidator must be a factory function (deps) => ..., found object`,
    );
  });

  it('whose factory builds something without findBySubject: PLUGIN_INVALID naming the plugin', async () => {
    const err = await bootErrorOf('malformed-user-store');
    expect(err.code).toBe('PLUGIN_INVALID');
    expect(err.message).toBe(
      `plugin "malformed-user-store" (${join(fixturePluginDir('malformed-user-store'), 'malformed-user-store')}): resourceOwnerValidator: findBySubject must be a function`,
    );
  });

  it('next to another one: PLUGIN_CONFLICT naming both', async () => {
    const err = await bootErrorOf('duplicate-user-store');
    expect(err.code).toBe('PLUGIN_CONFLICT');
    expect(err.message).toBe('plugins "users-a" and "users-b" both provide the resourceOwnerValidator (remove one)');
  });
});
