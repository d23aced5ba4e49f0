/**
 * Interop (issue 5): a real client library, openid-client v6, performs the password grant and
 * then delegation with the resulting token; the issued token is checked with jose against the
 * published JWKS.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import * as oidc from 'openid-client';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { startServer, type TestServer } from '../support/server.js';
import { alice, baseConfig, secretOf } from '../fixtures/grant-plugins/world.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer(baseConfig);
});
afterAll(() => server.close());

// The test server speaks plain HTTP on loopback; openid-client needs to be told that is fine.
const configuration = (clientId: string, auth: oidc.ClientAuth): Promise<oidc.Configuration> =>
  oidc.discovery(new URL(server.url), clientId, { client_secret: secretOf(clientId) }, auth, { execute: [oidc.allowInsecureRequests] });

it('openid-client gets a user token with the password grant, then api1.client delegates it', async () => {
  const web = await configuration('web', oidc.ClientSecretBasic(secretOf('web')));
  expect(web.serverMetadata().grant_types_supported).toEqual(expect.arrayContaining(['password', 'delegation']));

  const userTokens = await oidc.genericGrantRequest(web, 'password', { username: alice.username, password: alice.password, scope: 'openid api1.read' });
  expect(userTokens.token_type).toBe('bearer'); // oauth4webapi lower-cases it
  expect(userTokens.claims()).toMatchObject({ sub: alice.subjectId, aud: 'web', iss: server.url });

  const api1 = await configuration('api1.client', oidc.ClientSecretPost(secretOf('api1.client')));
  const delegated = await oidc.genericGrantRequest(api1, 'delegation', { token: userTokens.access_token, scope: 'backend.read' });
  expect(delegated.scope).toBe('backend.read');
  expect(delegated.expires_in).toBe(3600);

  const jwks = createRemoteJWKSet(new URL(web.serverMetadata().jwks_uri!));
  const { payload, protectedHeader } = await jwtVerify(delegated.access_token, jwks, { issuer: server.url, audience: 'backend', typ: 'at+jwt' });
  expect(protectedHeader.kid).toEqual(expect.any(String));
  expect(payload).toMatchObject({
    iss: server.url,
    sub: alice.subjectId,
    aud: 'backend',
    client_id: 'api1.client',
    scope: 'backend.read',
    act: { client_id: 'web' },
    auth_time: expect.any(Number),
  });
  const { payload: userPayload } = await jwtVerify(userTokens.access_token, jwks, { issuer: server.url, audience: 'api1', typ: 'at+jwt' });
  expect(payload.auth_time).toBe(userPayload.auth_time);
});

it('openid-client surfaces the delegation errors as OAuth errors', async () => {
  const api1 = await configuration('api1.client', oidc.ClientSecretPost(secretOf('api1.client')));
  const failure = await oidc.genericGrantRequest(api1, 'delegation', { token: 'not-a-token', scope: 'backend.read' }).then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(failure).toBeInstanceOf(oidc.ResponseBodyError);
  expect(failure).toMatchObject({ error: 'invalid_grant', error_description: 'The token is invalid.', status: 400 });
});
