/**
 * The working side of the plugin host: a TypeScript plugin folder loads with no build step and
 * its grant answers over HTTP; and the boundary: without the shared-secret plugin, no client
 * can authenticate with a secret.
 */
import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret } from '../../src/sdk/hash.js';
import { basic, postForm, startServer, type TestServer } from '../support/server.js';
import { fixturePluginDir, sharedSecretOnly, type TempPluginDir } from '../e2e/plugin-dirs.js';

describe('a TypeScript plugin folder with an extension grant', () => {
  let pluginDir: TempPluginDir;
  let server: TestServer;
  const auth = { authorization: basic('wizard-app', 'wizard-secret-55aa') };

  beforeAll(async () => {
    pluginDir = sharedSecretOnly();
    server = await startServer({
      pluginDirs: [pluginDir.dir, fixturePluginDir('valid')],
      plugins: { 'magic-word': { word: 'xyzzy' } },
      apiScopes: [{ name: 'api1.read' }],
      apiResources: [{ name: 'api1', scopes: ['api1.read'] }],
      clients: [
        {
          clientId: 'wizard-app',
          clientSecrets: [{ value: hashSecret('wizard-secret-55aa') }],
          allowedGrantTypes: ['urn:test:magic-word'],
          allowedScopes: ['api1.read'],
        },
      ],
    });
  });
  afterAll(async () => {
    await server?.close();
    pluginDir?.remove();
  });

  it('is TypeScript only: nothing was built', () => {
    expect(readdirSync(`${fixturePluginDir('valid')}/magic-word`).sort()).toEqual(['index.ts', 'word.ts']);
  });

  it('is loaded, registered and logged with what it provides', () => {
    expect(server.app.registry.plugins.find((p) => p.name === 'magic-word')).toMatchObject({
      source: `${fixturePluginDir('valid')}/magic-word`,
      grantTypes: ['urn:test:magic-word'],
      authenticationMethods: [],
    });
    expect(server.logs).toContainEqual(expect.objectContaining({
      msg: 'plugin.loaded',
      event: expect.objectContaining({ type: 'plugin.loaded', plugin: 'magic-word', grantTypes: ['urn:test:magic-word'] }),
    }));
  });

  it('issues a token for the subject its grant names, with its options and custom response', async () => {
    const reply = await postForm(`${server.url}/connect/token`, { grant_type: 'urn:test:magic-word', word: 'xyzzy', extra: 'kept' }, auth);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ token_type: 'Bearer', scope: 'api1.read', received: { grant_type: 'urn:test:magic-word', word: 'xyzzy', extra: 'kept' } });
    const claims = JSON.parse(Buffer.from(String(reply.body.access_token).split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
    expect(claims).toMatchObject({ sub: 'wizard-of-wizard-app', client_id: 'wizard-app', aud: 'api1', scope: 'api1.read' });
  });

  it("answers the grant's own error", async () => {
    const reply = await postForm(`${server.url}/connect/token`, { grant_type: 'urn:test:magic-word', word: 'please' }, auth);
    expect(reply).toMatchObject({ status: 400, body: { error: 'invalid_grant', error_description: 'That is not the magic word.' } });
  });

  it('denies with invalid_grant when the grant sets no result (fail closed)', async () => {
    const reply = await postForm(`${server.url}/connect/token`, { grant_type: 'urn:test:magic-word' }, auth);
    expect(reply).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('is listed in discovery', async () => {
    const doc = (await (await fetch(`${server.url}/.well-known/openid-configuration`)).json()) as { grant_types_supported: string[] };
    expect(doc.grant_types_supported).toContain('urn:test:magic-word');
  });
});

describe('the shared-secret plugin boundary', () => {
  let server: TestServer;

  beforeAll(async () => {
    // A secret type some plugin validates, but no plugin that parses shared secrets from requests.
    server = await startServer({
      pluginDirs: [fixturePluginDir('secret-type-only')],
      apiScopes: [{ name: 'api1.read' }],
      apiResources: [{ name: 'api1', scopes: ['api1.read'] }],
      clients: [
        {
          clientId: 'm2m',
          clientSecrets: [{ value: hashSecret('boundary-secret-77cc'), type: 'FixtureSecret' }],
          allowedGrantTypes: ['client_credentials'],
          allowedScopes: ['api1.read'],
        },
      ],
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('answers a client_secret in the body with 401 invalid_client', async () => {
    const reply = await postForm(`${server.url}/connect/token`, { grant_type: 'client_credentials', client_id: 'm2m', client_secret: 'boundary-secret-77cc' });
    expect(reply).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
  });

  it('answers a Basic header with 401 invalid_client', async () => {
    const reply = await postForm(`${server.url}/connect/token`, { grant_type: 'client_credentials' }, { authorization: basic('m2m', 'boundary-secret-77cc') });
    expect(reply).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
  });

  it('lists no client_secret_* method in discovery', async () => {
    const doc = (await (await fetch(`${server.url}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    expect(doc.token_endpoint_auth_methods_supported).toEqual([]);
    expect(JSON.stringify(doc)).not.toContain('client_secret_');
  });
});
