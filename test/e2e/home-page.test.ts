/**
 * GET /: a person who opens the service's address sees a page naming the service and linking
 * discovery, not a JSON "Not found".
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { hashSecret } from '../../src/sdk/hash.js';
import { startServer, type TestServer } from '../support/server.js';
import { sharedSecretOnly, type TempPluginDir } from './plugin-dirs.js';

let pluginDir: TempPluginDir;
let server: TestServer;

beforeAll(async () => {
  pluginDir = sharedSecretOnly();
  server = await startServer({
    pluginDirs: [pluginDir.dir],
    apiScopes: [{ name: 'api1.read' }],
    apiResources: [{ name: 'api1', scopes: ['api1.read'] }],
    clients: [{ clientId: 'm2m', clientSecrets: [{ value: hashSecret('home-secret') }], allowedGrantTypes: ['client_credentials'], allowedScopes: ['api1.read'] }],
  });
});

afterAll(async () => {
  await server.close();
  pluginDir.remove();
});

it('GET / answers an HTML page that names the service and links discovery and the keys', async () => {
  const response = await fetch(`${server.url}/`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
  expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  const page = await response.text();
  expect(page).toContain('<title>svc token service</title>');
  expect(page).toContain(`Issuer: <code>${server.url}</code>`);
  expect(page).toContain('<a href="/.well-known/openid-configuration">');
  expect(page).toContain('<a href="/.well-known/openid-configuration/jwks">');
});

it('another unknown path still answers JSON 404', async () => {
  const response = await fetch(`${server.url}/nothing-here`);
  expect(response.status).toBe(404);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
});
