/**
 * plugins/delegation over HTTP (spec §4.1 "Delegation grant"; issue 5): a user's access token,
 * obtained with the password grant, swapped by an API's client for a back-end token.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalJWKSet, decodeJwt, importJWK, jwtVerify, SignJWT, type JSONWebKeySet, type JWK } from 'jose';
import { randomBytes } from 'node:crypto';
import { createMemoryStore } from '../../src/store/memory-store.js';
import { postForm, startServer, type TestServer } from '../support/server.js';
import {
  accessClaims, alice, auth, baseConfig, delegate, invalidGrant, manualClock, tokenRequest, userToken,
} from '../fixtures/grant-plugins/world.js';
import { handlePattern } from '../support/handle-pattern.js';

const clock = manualClock();
const store = createMemoryStore(clock);
let server: TestServer;
beforeAll(async () => {
  server = await startServer(baseConfig, { clock, store });
});
afterAll(() => server.close());

const tokenIsInvalid = invalidGrant('The token is invalid.');

async function expectRefused(token: string, body = tokenIsInvalid): Promise<void> {
  const res = await delegate(server, token);
  expect(res.status).toBe(400);
  expect(res.body).toEqual(body);
}

describe('delegation: the worked example', () => {
  it('swaps the user token of web for a back-end token of api1.client that acts for the user', async () => {
    const user = await userToken(server, { scope: 'api1.read' });
    const userClaims = accessClaims(user.access_token);

    const res = await delegate(server, user.access_token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 3600, scope: 'backend.read' });

    const jwks = createLocalJWKSet((await (await fetch(`${server.url}/.well-known/openid-configuration/jwks`)).json()) as JSONWebKeySet);
    const { payload, protectedHeader } = await jwtVerify(res.body.access_token as string, jwks, {
      issuer: server.url, audience: 'backend', typ: 'at+jwt', currentDate: new Date(clock.now()),
    });
    expect(protectedHeader.typ).toBe('at+jwt');
    expect(payload).toMatchObject({
      sub: alice.subjectId,
      scope: 'backend.read',
      client_id: 'api1.client',
      aud: 'backend',
      act: { client_id: 'web' },
      auth_time: userClaims.auth_time,
    });
  });

  it('delegates a reference user token too', async () => {
    const user = await userToken(server, { clientId: 'web-ref', scope: 'api1.read' });
    expect(user.access_token).toMatch(handlePattern);
    const res = await delegate(server, user.access_token);
    expect(res.status).toBe(200);
    expect(accessClaims(res.body.access_token)).toMatchObject({
      sub: alice.subjectId, client_id: 'api1.client', scope: 'backend.read', act: { client_id: 'web-ref' }, auth_time: expect.any(Number),
    });
  });

  it('nests act when a delegated token is delegated again, so the back end sees the chain', async () => {
    const user = await userToken(server);
    const first = await delegate(server, user.access_token);
    expect(first.status).toBe(200);
    const second = await delegate(server, first.body.access_token as string, 'backend.client');
    expect(second.status).toBe(200);
    expect(accessClaims(second.body.access_token)).toMatchObject({
      sub: alice.subjectId,
      client_id: 'backend.client',
      act: { client_id: 'api1.client', act: { client_id: 'web' } },
    });
  });

  it('returns a refresh token for offline_access, and the refreshed token still acts for the user', async () => {
    const user = await userToken(server);
    const res = await tokenRequest(server, 'api1.client', { grant_type: 'delegation', token: user.access_token, scope: 'backend.read offline_access' });
    expect(res.status).toBe(200);
    expect(res.body.refresh_token).toEqual(expect.stringMatching(handlePattern));
    const refreshed = await tokenRequest(server, 'api1.client', { grant_type: 'refresh_token', refresh_token: res.body.refresh_token as string });
    expect(refreshed.status).toBe(200);
    expect(accessClaims(refreshed.body.access_token)).toMatchObject({
      sub: alice.subjectId, client_id: 'api1.client', act: { client_id: 'web' }, auth_time: accessClaims(user.access_token).auth_time,
    });
  });
});

describe('delegation: only tokens addressed to an API the client fronts (issue 14.1)', () => {
  it('refuses a user token addressed to another API: the client cannot launder any token it gets hold of', async () => {
    const backendUser = await userToken(server, { clientId: 'backend-app', scope: 'backend.read' });
    expect(accessClaims(backendUser.access_token).aud).toBe('backend');
    const before = server.logs.length;
    const res = await delegate(server, backendUser.access_token);
    expect({ status: res.status, body: res.body }).toEqual({
      status: 400, body: invalidGrant('The token was not issued to an API this client acts for.'),
    });
    expect(server.logs.slice(before)).toContainEqual(expect.objectContaining({
      clientId: 'api1.client', aud: 'backend', allowed: ['api1'], msg: 'delegation: token addressed to an API the client does not front',
    }));
  });

  it('lets the back end\'s own client delegate that token: it fronts backend', async () => {
    const backendUser = await userToken(server, { clientId: 'backend-app', scope: 'backend.read' });
    expect((await delegate(server, backendUser.access_token, 'backend.client')).status).toBe(200);
  });
});

describe('delegation: the host checks the delegating client first', () => {
  it('answers unauthorized_client to a client without the delegation grant type', async () => {
    const user = await userToken(server);
    const res = await delegate(server, user.access_token, 'web', 'api1.read');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'unauthorized_client', error_description: 'The client is not allowed to use this grant type.' });
  });

  it('answers invalid_scope for a scope the delegating client is not allowed', async () => {
    const user = await userToken(server);
    const res = await delegate(server, user.access_token, 'api1.client', 'api1.read');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_scope', error_description: 'The client is not allowed a requested scope.' });
  });
});

describe('delegation: the token parameter', () => {
  it('answers invalid_grant when token is missing', async () => {
    const res = await tokenRequest(server, 'api1.client', { grant_type: 'delegation', scope: 'backend.read' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(invalidGrant('The token parameter is missing.'));
  });

  it('answers invalid_grant when token is empty', async () => {
    const res = await tokenRequest(server, 'api1.client', { grant_type: 'delegation', scope: 'backend.read', token: '' });
    expect(res.status).toBe(400);
    // RFC 6749 §3.1: an empty parameter counts as omitted.
    expect(res.body).toEqual(invalidGrant('The token parameter is missing.'));
  });

  it('answers invalid_grant for an expired user token', async () => {
    const user = await userToken(server);
    clock.advance(3590);
    expect((await delegate(server, user.access_token)).status).toBe(200); // still valid 10 s before exp
    clock.advance(20);
    await expectRefused(user.access_token);
  });

  it('answers invalid_grant for a token whose payload was tampered with', async () => {
    const user = await userToken(server);
    const [header, payload, signature] = user.access_token.split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as Record<string, unknown>;
    const forged = Buffer.from(JSON.stringify({ ...claims, sub: 'admin' })).toString('base64url');
    await expectRefused(`${header}.${forged}.${signature}`);
    // Never logged: the log says why, not what.
    expect(server.logText()).not.toContain(forged);
  });

  it('answers invalid_grant for a token whose signature was altered', async () => {
    const user = await userToken(server);
    const sig = Buffer.from(user.access_token.split('.')[2]!, 'base64url');
    sig[10]! ^= 0xff;
    await expectRefused(user.access_token.replace(/[\w-]+$/, sig.toString('base64url')));
  });

  it('answers invalid_grant for a token of another server (its own keys and issuer)', async () => {
    const other = await startServer(baseConfig, { clock });
    try {
      const foreign = await userToken(other);
      expect((await delegate(other, foreign.access_token)).status).toBe(200); // valid where it was issued
      await expectRefused(foreign.access_token);
    } finally {
      await other.close();
    }
  });

  it('answers invalid_grant for a token signed with this service’s own key but naming another issuer', async () => {
    const user = await userToken(server);
    const [record] = (await store.listSigningKeys()).filter((k) => k.alg === 'ES256');
    const key = await importJWK(JSON.parse(record!.privateJwk) as JWK, 'ES256');
    const sign = (claims: Record<string, unknown>) =>
      new SignJWT(claims).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: record!.kid }).sign(key);
    const claims = accessClaims(user.access_token);
    // The control: the same forgery naming the right issuer is accepted, so the issuer is what fails below.
    expect((await delegate(server, await sign(claims))).status).toBe(200);
    await expectRefused(await sign({ ...claims, iss: 'https://other.example' }));
  });

  it('answers invalid_grant for an id_token', async () => {
    const user = await userToken(server, { scope: 'openid api1.read' });
    expect(decodeJwt(user.id_token as string).sub).toBe(alice.subjectId);
    await expectRefused(user.id_token as string);
  });

  it('answers invalid_grant for a refresh token', async () => {
    const user = await userToken(server, { scope: 'api1.read offline_access' });
    await expectRefused(user.refresh_token as string);
    // The refresh token was not touched by the attempt.
    const refreshed = await tokenRequest(server, 'web', { grant_type: 'refresh_token', refresh_token: user.refresh_token as string });
    expect(refreshed.status).toBe(200);
  });

  it('answers invalid_grant for an unknown reference token', async () => {
    await expectRefused(randomBytes(32).toString('base64url'));
  });

  it('answers invalid_grant for a reference token revoked at the revocation endpoint', async () => {
    const user = await userToken(server, { clientId: 'web-ref' });
    expect((await delegate(server, user.access_token)).status).toBe(200);
    const revoked = await postForm(`${server.url}/connect/revocation`, { token: user.access_token }, auth('web-ref'));
    expect(revoked.status).toBe(200);
    await expectRefused(user.access_token);
  });

  it('answers invalid_grant for an expired reference token', async () => {
    const user = await userToken(server, { clientId: 'web-ref' });
    clock.advance(3601);
    await expectRefused(user.access_token);
  });

  it('answers invalid_grant for a client_credentials token: it represents no user', async () => {
    const m2m = await tokenRequest(server, 'm2m', { grant_type: 'client_credentials', scope: 'backend.read' });
    expect(m2m.status).toBe(200);
    await expectRefused(m2m.body.access_token as string, invalidGrant('The token does not represent a user.'));
  });

  it('answers invalid_grant for something that is no token at all', async () => {
    await expectRefused('not a token');
  });
});
