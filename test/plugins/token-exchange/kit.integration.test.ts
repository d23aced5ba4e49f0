/** Token exchange through the plugin test kit (`svc/sdk/testing`), as a plugin author would test it. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { basicAuthorization, startTestService, type TestService } from 'svc/sdk/testing';
import { hashSecret } from 'svc/sdk';

const grantType = 'urn:ietf:params:oauth:grant-type:token-exchange';
const accessTokenType = 'urn:ietf:params:oauth:token-type:access_token';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({
    pluginDirs: [fileURLToPath(new URL('../../../plugins', import.meta.url))],
    config: {
      apiScopes: [{ name: 'api1.read' }, { name: 'backend.read' }],
      apiResources: [{ name: 'api1', scopes: ['api1.read'] }, { name: 'backend', scopes: ['backend.read'] }],
      clients: [
        { clientId: 'm2m', clientSecrets: [{ value: hashSecret('m2m-secret') }], allowedGrantTypes: ['client_credentials'], allowedScopes: ['api1.read'] },
        {
          clientId: 'api1.client', clientSecrets: [{ value: hashSecret('api1-secret') }], allowedGrantTypes: [grantType],
          allowedScopes: ['backend.read'], allowedSubjectTokenAudiences: ['api1'],
        },
      ],
    },
  });
});
afterAll(() => svc.close());

const exchange = (params: Record<string, string>) => svc.token({ grant_type: grantType, scope: 'backend.read', ...params }, basicAuthorization('api1.client', 'api1-secret'));

describe('token-exchange, started with the test kit', () => {
  it("swaps a client's token addressed to api1 for one to the back end, keeping the subject", async () => {
    const subject = await svc.token({ grant_type: 'client_credentials' }, basicAuthorization('m2m', 'm2m-secret'));
    const res = await exchange({ subject_token: String(subject.body!.access_token), subject_token_type: accessTokenType });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ issued_token_type: accessTokenType, scope: 'backend.read' });
    expect(res.body).not.toHaveProperty('refresh_token');
  });

  it('answers invalid_request for a subject_token that is not valid (RFC 8693 §2.2.2)', async () => {
    const res = await exchange({ subject_token: 'not-a-token', subject_token_type: accessTokenType });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_request', error_description: 'The subject_token is invalid.' });
  });
});
