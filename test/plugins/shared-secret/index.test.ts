/** The shared-secret plugin as the host sees it: its parts, and a bad stored hash at start-up. */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharedSecret from '../../../plugins/shared-secret/index.js';
import { createApp } from '../../../src/app/create-app.js';
import { BootError } from '../../../src/config/boot-error.js';
import { checkConfig } from '../../../src/config/load.js';
import { hashSecret } from '../../../src/sdk/hash.js';
import type { Plugin, PluginDependencies } from '../../../src/sdk/contracts.js';
import { sharedSecretOnly, type TempPluginDir } from '../../e2e/plugin-dirs.js';

/** Seen through the contract, as the host sees it. */
const plugin: Plugin = sharedSecret;

describe('shared-secret plugin', () => {
  it('is named after its folder and provides the Basic parser, the POST parser and one validator', async () => {
    expect(plugin.name).toBe('shared-secret');
    expect(plugin).not.toHaveProperty('extensionGrants');
    const config = checkConfig({}, '/srv/svc');
    const deps = { config } as unknown as PluginDependencies;
    const parsers = await Promise.all((plugin.secretParsers ?? []).map((f) => f(deps)));
    expect(parsers.map((p) => p.authenticationMethod)).toEqual(['client_secret_basic', 'client_secret_post']);
    const validators = await Promise.all((plugin.secretValidators ?? []).map((f) => f(deps)));
    expect(validators.map((v) => v.secretTypes)).toEqual([['SharedSecret']]);
  });

  describe('with a stored value that is not a hash', () => {
    let pluginDir: TempPluginDir;
    beforeAll(() => {
      pluginDir = sharedSecretOnly();
    });
    afterAll(() => pluginDir?.remove());

    it('stops start-up with PLUGIN_INVALID naming the plugin and the field', async () => {
      const config = checkConfig(
        {
          store: 'memory',
          pluginDirs: [pluginDir.dir],
          apiScopes: [{ name: 'api1.read' }],
          clients: [
            {
              clientId: 'm2m',
              clientSecrets: [{ value: hashSecret('fine') }, { value: 'plain-text-secret' }],
              allowedGrantTypes: ['client_credentials'],
              allowedScopes: ['api1.read'],
            },
          ],
        },
        pluginDir.dir,
      );
      const err: unknown = await createApp(config, { logDestination: new Writable({ write: (_c, _e, done) => done() }) }).then(
        async (app) => {
          await app.close();
          return undefined;
        },
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(BootError);
      expect((err as BootError).code).toBe('PLUGIN_INVALID');
      expect((err as BootError).message).toMatch(
        /^plugin "shared-secret" \(.+\/shared-secret\): secretValidators\[0\] failed to start: clients\[0\]\.clientSecrets\[1\]\.value: not a base64 SHA-256 or SHA-512 hash/,
      );
      expect((err as BootError).message).not.toContain('plain-text-secret');
    });
  });
});
