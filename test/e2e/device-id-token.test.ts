/**
 * The device flow's ID token (issue 6): issued when `openid` was granted, signed with a key from
 * the JWKS, for the user who approved, carrying exactly the claims the granted identity
 * resources (`identityResources`) release from the user's `claims`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet, type JWTPayload } from 'jose';
import { startServer, type TestServer } from '../support/server.js';
import { alice, bob, codesFor, decideOverHttp, deviceConfig, poll } from '../device/helpers.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer(await deviceConfig());
});
afterAll(() => server.close());

/** Runs the flow for `user` and returns the verified ID token's claims and the token response. */
async function idTokenFor(user: typeof alice | typeof bob, params: Record<string, string>) {
  const codes = await codesFor(server, { client_id: 'tv', ...params });
  const signedIn = Math.floor(Date.now() / 1000);
  await decideOverHttp(server.url, codes.verification_uri_complete, user, 'approve');
  const res = await poll(server, codes.device_code);
  expect(res.status).toBe(200);
  const jwks = createLocalJWKSet((await (await fetch(`${server.url}/.well-known/openid-configuration/jwks`)).json()) as JSONWebKeySet);
  const { payload } = await jwtVerify(res.body.id_token as string, jwks, { issuer: server.url, audience: 'tv' });
  expect(payload.sub).toBe(user.subjectId);
  expect(payload.auth_time).toBeGreaterThanOrEqual(signedIn);
  return { claims: payload as JWTPayload & Record<string, unknown>, body: res.body };
}

describe('the ID token of the device flow', () => {
  it('releases the email claim for the email scope, and not the name of an ungranted profile', async () => {
    const { claims } = await idTokenFor(alice, { scope: 'openid email api1.read' });
    expect(claims.email).toBe('alice@example.com');
    expect(claims).not.toHaveProperty('name');
  });

  it('carries no user claims at all for openid alone', async () => {
    const { claims } = await idTokenFor(alice, { scope: 'openid api1.read' });
    expect(claims).not.toHaveProperty('name');
    expect(claims).not.toHaveProperty('email');
  });

  it('leaves out a claim the user does not have', async () => {
    const { claims } = await idTokenFor(bob, { scope: 'openid profile email' });
    expect(claims.name).toBe('Bob Jones');
    expect(claims).not.toHaveProperty('email');
  });

  it('comes with the default scope, which includes the client’s identity scopes', async () => {
    const { claims, body } = await idTokenFor(alice, {});
    expect(body.scope).toBe('openid profile email api1.read api1.write');
    expect(claims).toMatchObject({ name: 'Alice Smith', email: 'alice@example.com' });
    // offline_access is only granted when asked for.
    expect(body).not.toHaveProperty('refresh_token');
  });
});
