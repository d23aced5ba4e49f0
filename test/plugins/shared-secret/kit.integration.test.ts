/** The shared-secret plugin through the plugin test kit (`svc/sdk/testing`), as a plugin author would test it. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicAuthorization, startTestService, type TestService } from 'svc/sdk/testing';
import { hashSecret } from 'svc/sdk';
import { sharedSecretOnly, type TempPluginDir } from '../../e2e/plugin-dirs.js';

let dir: TempPluginDir;
let svc: TestService;
beforeAll(async () => {
  dir = sharedSecretOnly();
  svc = await startTestService({
    pluginDirs: [dir.dir],
    config: {
      apiScopes: [{ name: 'api' }],
      apiResources: [{ name: 'api', scopes: ['api'] }],
      clients: [{ clientId: 'm2m', clientSecrets: [{ value: hashSecret('m2m-secret') }], allowedGrantTypes: ['client_credentials'], allowedScopes: ['api'] }],
    },
  });
});
afterAll(async () => {
  await svc.close();
  dir.remove();
});

describe('shared-secret, started with the test kit', () => {
  it('authenticates a client by its Basic secret', async () => {
    const res = await svc.token({ grant_type: 'client_credentials' }, basicAuthorization('m2m', 'm2m-secret'));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ token_type: 'Bearer', scope: 'api' });
  });

  it('answers invalid_client for a wrong secret in the body, and logs no secret', async () => {
    const res = await svc.token({ grant_type: 'client_credentials', client_id: 'm2m', client_secret: 'guess' });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'invalid_client', error_description: 'Client authentication failed.' });
    expect(JSON.stringify(svc.logs())).not.toContain('guess');
  });
});
