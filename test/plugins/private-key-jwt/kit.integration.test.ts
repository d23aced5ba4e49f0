/** private_key_jwt through the plugin test kit (`svc/sdk/testing`), as a plugin author would test it. */
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from 'svc/sdk/testing';
import { JWT_BEARER, makeKey, publicJwk, sign, type TestKey } from './helpers.js';

let key: TestKey;
let svc: TestService;
beforeAll(async () => {
  key = await makeKey('P-256');
  svc = await startTestService({
    pluginDirs: [fileURLToPath(new URL('../../../plugins', import.meta.url))],
    config: {
      apiScopes: [{ name: 'api' }],
      apiResources: [{ name: 'api', scopes: ['api'] }],
      clients: [{ clientId: 'signer', clientSecrets: [{ type: 'JsonWebKey', value: JSON.stringify(publicJwk(key)) }], allowedGrantTypes: ['client_credentials'], allowedScopes: ['api'] }],
    },
  });
});
afterAll(() => svc.close());

const assertion = (jti = randomUUID()) => {
  const now = Math.floor(Date.now() / 1000);
  return sign(key, 'ES256', { iss: 'signer', sub: 'signer', aud: svc.url, iat: now, exp: now + 60, jti }, { typ: 'client-authentication+jwt' });
};
const token = (jwt: string) => svc.token({ grant_type: 'client_credentials', client_assertion_type: JWT_BEARER, client_assertion: jwt });

describe('private-key-jwt, started with the test kit', () => {
  it('authenticates a client by a signed assertion, once per jti, and logs no assertion', async () => {
    const jwt = await assertion();
    expect((await token(jwt)).status).toBe(200);
    const replay = await token(jwt);
    expect(replay.status).toBe(401);
    expect(replay.body).toEqual({ error: 'invalid_client', error_description: 'Client authentication failed.' });
    expect(JSON.stringify(svc.logs())).not.toContain(jwt);
  });
});
