/** The delegation grant through the plugin test kit (`svc/sdk/testing`), as a plugin author would test it. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { basicAuthorization, startTestService, type TestService } from 'svc/sdk/testing';
import { hashSecret } from 'svc/sdk';

// The demo config's alice (password: alice-password).
const alice = {
  subjectId: '818727', username: 'alice',
  password: '$scrypt$ln=15,r=8,p=1$mhlXkX6tUbLjZQFHgaaTHA$ECJyChWPuJMmc98jP8W0GRSEi5Y3IpXKDeWeUOGYVXk',
};

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({
    pluginDirs: [fileURLToPath(new URL('../../../plugins', import.meta.url))],
    config: {
      users: [alice],
      apiScopes: [{ name: 'api1.read' }, { name: 'backend.read' }],
      apiResources: [{ name: 'api1', scopes: ['api1.read'] }, { name: 'backend', scopes: ['backend.read'] }],
      clients: [
        { clientId: 'web', clientSecrets: [{ value: hashSecret('web-secret') }], allowedGrantTypes: ['password'], allowedScopes: ['api1.read'] },
        {
          clientId: 'api1.client', clientSecrets: [{ value: hashSecret('api1-secret') }], allowedGrantTypes: ['delegation'],
          allowedScopes: ['backend.read'], allowedSubjectTokenAudiences: ['api1'],
        },
      ],
    },
  });
});
afterAll(() => svc.close());

const delegate = (token: string) =>
  svc.token({ grant_type: 'delegation', scope: 'backend.read', token }, basicAuthorization('api1.client', 'api1-secret'));

describe('delegation, started with the test kit', () => {
  it("acts for the user of a token addressed to the API the client fronts, and logs no token", async () => {
    const user = await svc.token({ grant_type: 'password', username: 'alice', password: 'alice-password', scope: 'api1.read' }, basicAuthorization('web', 'web-secret'));
    const userToken = String(user.body!.access_token);
    const res = await delegate(userToken);
    expect(res.status).toBe(200);
    const claims = JSON.parse(Buffer.from(String(res.body!.access_token).split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
    expect(claims).toMatchObject({ sub: '818727', aud: 'backend', act: { client_id: 'web' } });
    expect(JSON.stringify(svc.logs())).not.toContain(userToken);
  });

  it('answers invalid_grant for a token that does not validate', async () => {
    const res = await delegate('not-a-token');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_grant', error_description: 'The token is invalid.' });
  });
});
