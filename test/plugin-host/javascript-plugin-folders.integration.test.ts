/**
 * A plugin folder may be entered through `index.js` or `index.mjs` as well as `index.ts`: both
 * JavaScript fixtures load through the same loader, register their grants and answer over HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret } from '../../src/sdk/hash.js';
import { basic, postForm, startServer, type TestServer } from '../support/server.js';
import { fixturePluginDir, sharedSecretOnly, type TempPluginDir } from '../e2e/plugin-dirs.js';

let pluginDir: TempPluginDir;
let server: TestServer;

beforeAll(async () => {
  pluginDir = sharedSecretOnly();
  server = await startServer({
    pluginDirs: [pluginDir.dir, fixturePluginDir('javascript')],
    plugins: { 'js-grant': { suffix: 'from-options' } },
    apiScopes: [{ name: 'api1.read' }],
    apiResources: [{ name: 'api1', scopes: ['api1.read'] }],
    clients: [
      {
        clientId: 'js-app',
        clientSecrets: [{ value: hashSecret('js-app-secret') }],
        allowedGrantTypes: ['urn:test:js', 'urn:test:mjs'],
        allowedScopes: ['api1.read'],
      },
    ],
  });
});

afterAll(async () => {
  await server?.close();
  pluginDir?.remove();
});

const subjectOf = (accessToken: unknown) =>
  (JSON.parse(Buffer.from(String(accessToken).split('.')[1]!, 'base64url').toString()) as { sub: string }).sub;

describe('JavaScript plugin folders', () => {
  it('are registered from index.js and index.mjs, named after their folders', () => {
    const loaded = server.app.registry.plugins.filter((p) => p.name.endsWith('-grant'));
    expect(loaded.map((p) => [p.name, p.source, p.grantTypes])).toEqual([
      ['js-grant', `${fixturePluginDir('javascript')}/js-grant`, ['urn:test:js']],
      ['mjs-grant', `${fixturePluginDir('javascript')}/mjs-grant`, ['urn:test:mjs']],
    ]);
  });

  it.each([
    ['index.js', 'urn:test:js', 'js-from-options'],
    ['index.mjs', 'urn:test:mjs', 'mjs-user'],
  ])('answer token requests: the %s grant issues a token for its subject', async (_entry, grantType, subject) => {
    const reply = await postForm(`${server.url}/connect/token`, { grant_type: grantType }, { authorization: basic('js-app', 'js-app-secret') });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(subjectOf(reply.body.access_token)).toBe(subject);
  });
});
