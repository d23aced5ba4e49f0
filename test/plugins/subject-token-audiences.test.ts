/**
 * `allowedSubjectTokenAudiences` is a client field of the delegation and token exchange plugins
 * (issues 32, 39), one declaration both list: a config written before the move starts as it did,
 * a bad value stops start-up naming the field path (and the plugin that judged it), and without
 * either plugin the field is unknown.
 */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app/create-app.js';
import { systemClock } from '../../src/app/system-clock.js';
import { checkConfig } from '../../src/config/load.js';
import { allowedSubjectTokenAudiences } from '../../src/sdk/subject-token-audiences.js';
import { bootErrorFor } from '../support/boot-error.js';
import { memoryStoreWithTestKeys } from '../support/test-keys.js';

const tokenExchange = 'urn:ietf:params:oauth:grant-type:token-exchange';
const model = { apiScopes: [{ name: 'api1.read' }, { name: 'backend.read' }], apiResources: [{ name: 'api1', scopes: ['api1.read'] }] };
const client = (patch: Record<string, unknown>) => ({ clientId: 'api1.client', requireClientSecret: false, allowedScopes: ['backend.read'], ...patch });
const raw = (plugins: string[], ...clients: Record<string, unknown>[]) => ({ store: 'memory', pluginDirs: [], packagePlugins: plugins, ...model, clients });
const quiet = new Writable({ write: (_chunk, _enc, done) => done() });

describe('allowedSubjectTokenAudiences, declared by the delegation and token exchange plugins', () => {
  it('starts a config written before the move unchanged, both plugins sharing the one field', async () => {
    const config = checkConfig(raw(['delegation', 'token-exchange'],
      client({ allowedGrantTypes: ['delegation'], allowedSubjectTokenAudiences: ['api1'] }),
      client({ clientId: 'exchanger', allowedGrantTypes: [tokenExchange], allowedSubjectTokenAudiences: ['api1'] })), process.cwd());
    const store = await memoryStoreWithTestKeys(config, systemClock);
    const app = await createApp(config, { logDestination: quiet, ...(store ? { store } : {}) });
    try {
      expect(app.registry.clientFields?.get('allowedSubjectTokenAudiences')?.map((d) => d.plugin)).toEqual(['delegation', 'token-exchange']);
      expect(app.config.clients.map((c) => allowedSubjectTokenAudiences.read(c))).toEqual([['api1'], ['api1']]);
    } finally {
      await app.close();
    }
  });

  it('stops start-up on an unknown API resource, naming the entry', async () => {
    const err = await bootErrorFor(raw(['delegation', 'token-exchange'], client({ allowedGrantTypes: ['delegation'], allowedSubjectTokenAudiences: ['api1', 'payroll'] })), process.cwd());
    expect(err.code).toBe('CONFIG_INVALID');
    expect(err.problems).toEqual(['clients[0].allowedSubjectTokenAudiences[1]: unknown API resource "payroll" (known: api1) (plugin "delegation")']);
  });

  it('stops start-up on a value that is no list, naming the field', async () => {
    const err = await bootErrorFor(raw(['token-exchange'], client({ allowedGrantTypes: [tokenExchange], allowedSubjectTokenAudiences: 'api1' })), process.cwd());
    expect(err.problems).toEqual(['clients[0].allowedSubjectTokenAudiences: expected an array of API resource names, got "api1" (plugin "token-exchange")']);
  });

  it('is an unknown field when neither plugin is loaded', async () => {
    const err = await bootErrorFor(raw(['shared-secret'], client({ allowedGrantTypes: [], allowedSubjectTokenAudiences: ['api1'] })), process.cwd());
    expect(err.problems).toEqual([expect.stringMatching(/^clients\[0\]\.allowedSubjectTokenAudiences: unknown field \(known: clientId, /)]);
  });
});
