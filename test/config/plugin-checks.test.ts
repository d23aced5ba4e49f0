/**
 * The config checks that need the loaded plugins (plugin-host/check-config.ts), seen through
 * createApp: a grant type or secret type nothing provides stops start-up, naming the field.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app/create-app.js';
import { BootError } from '../../src/config/boot-error.js';
import { checkConfig } from '../../src/config/load.js';
import type { ClientConfig, UserConfig } from '../../src/config/schema.js';
import { hashSecret } from '../../src/sdk/hash.js';
import { sharedSecretOnly, type TempPluginDir } from '../e2e/plugin-dirs.js';

let pluginDir: TempPluginDir;
beforeAll(() => {
  pluginDir = sharedSecretOnly();
});
afterAll(() => pluginDir?.remove());

const quiet = new Writable({ write: (_chunk, _enc, done) => done() });
const client = (clientId: string, patch: Partial<ClientConfig> = {}): ClientConfig => ({
  clientId,
  clientSecrets: [{ value: hashSecret(`${clientId}-secret`) }],
  allowedGrantTypes: ['client_credentials'],
  allowedScopes: ['api1.read'],
  ...patch,
});

async function bootError(user: UserConfig): Promise<BootError> {
  const config = checkConfig(
    { store: 'memory', pluginDirs: [pluginDir.dir], packagePlugins: [], apiScopes: [{ name: 'api1.read' }], ...user },
    pluginDir.dir,
  );
  const err: unknown = await createApp(config, { logDestination: quiet }).then(
    async (app) => {
      await app.close();
      return undefined;
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(BootError);
  return err as BootError;
}

describe('checks against the loaded plugins', () => {
  it('names a misspelt grant type with its field path and lists the known grant types', async () => {
    const err = await bootError({
      clients: [client('a'), client('b'), client('c', { allowedGrantTypes: ['delegaton'] })],
    });
    expect(err.code).toBe('CONFIG_INVALID');
    expect(err.problems).toHaveLength(1);
    expect(err.problems[0]).toMatch(/^clients\[2\]\.allowedGrantTypes\[0\]: unknown grant type "delegaton" \(known: client_credentials(, [^,)]+)*\)$/);
    expect(err.message).toBe(err.problems[0]);
  });

  it('reports every unknown grant type, one message each', async () => {
    const err = await bootError({
      clients: [client('a', { allowedGrantTypes: ['client_credentials', 'urn:nope:one'] }), client('b', { allowedGrantTypes: ['urn:nope:two'] })],
    });
    expect(err.problems.map((p) => p.split(':')[0])).toEqual(['clients[0].allowedGrantTypes[1]', 'clients[1].allowedGrantTypes[0]']);
  });

  it('names a secret type no validator handles, listing the known ones', async () => {
    const err = await bootError({ clients: [client('a', { clientSecrets: [{ value: 'x', type: 'Sharedsecret' }] })] });
    expect(err.code).toBe('CONFIG_INVALID');
    expect(err.problems).toEqual(['clients[0].clientSecrets[0].type: unknown secret type "Sharedsecret" (did you mean "SharedSecret"?) (known: SharedSecret)']);
  });

  it('names an API resource secret type no validator handles', async () => {
    const err = await bootError({
      apiResources: [{ name: 'api1', scopes: ['api1.read'], secrets: [{ value: 'x', type: 'Carrier pigeon' }] }],
    });
    expect(err.problems).toEqual(['apiResources[0].secrets[0].type: unknown secret type "Carrier pigeon" (known: SharedSecret)']);
  });

  it('says no secret validator is loaded when shared secrets are configured without the shared-secret plugin', async () => {
    const err = await bootError({ pluginDirs: [], clients: [client('a')] });
    expect(err.problems).toEqual([
      'clients[0].clientSecrets[0].type: unknown secret type "SharedSecret" (known: none: no secret validator plugin is loaded)',
    ]);
  });
});
