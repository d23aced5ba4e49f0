/**
 * A plugin's interaction pages (`signInPage`) are checked like every other plugin part: one
 * that replaces nothing, or an external identity provider without its callback, stops start-up.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixturePluginDir } from '../e2e/plugin-dirs.js';
import { bootError } from '../support/boot-error.js';

const bootErrorOf = (caseName: string) => bootError([fixturePluginDir(caseName)], fixturePluginDir('.'));

describe('a broken sign-in page plugin', () => {
  it('that gives none of its members: PLUGIN_INVALID naming the plugin and what to give', async () => {
    const err = await bootErrorOf('empty-sign-in-page');
    expect(err.code).toBe('PLUGIN_INVALID');
    expect(err.message).toBe(
      `plugin "empty-sign-in-page" (${join(fixturePluginDir('empty-sign-in-page'), 'empty-sign-in-page')}): signInPage: a signInPage must give at least one of render, authenticate, renderConsent, renderLogout, renderSecondFactor or externalSignIn`,
    );
  });

  it('whose external identity provider has no callback: PLUGIN_INVALID', async () => {
    const err = await bootErrorOf('malformed-external-sign-in');
    expect(err.code).toBe('PLUGIN_INVALID');
    expect(err.message).toBe(
      `plugin "malformed-external-sign-in" (${join(fixturePluginDir('malformed-external-sign-in'), 'malformed-external-sign-in')}): signInPage: externalSignIn, when given, must have start and callback functions`,
    );
  });
});
