/**
 * The resource owner password credentials grant (RFC 6749 §4.3) over config users with PHC
 * scrypt passwords, and which grants can return refresh tokens (issue 5, "Users", "Refresh tokens").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { startServer, type TestServer } from '../support/server.js';
import { accessClaims, alice, auth, baseConfig, bob, manualClock, tokenRequest } from '../fixtures/grant-plugins/world.js';
import { handlePattern } from '../support/handle-pattern.js';

const clock = manualClock();
let server: TestServer;
beforeAll(async () => {
  server = await startServer(baseConfig, { clock });
});
afterAll(() => server.close());

const password = (params: Record<string, string>, clientId = 'web') => tokenRequest(server, clientId, { grant_type: 'password', ...params });

describe('password grant', () => {
  it('issues the user a token: sub is the subjectId, auth_time is when they signed in', async () => {
    const res = await password({ username: 'alice', password: alice.password, scope: 'api1.read' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 3600, scope: 'api1.read' });
    expect(accessClaims(res.body.access_token)).toMatchObject({
      iss: server.url, sub: alice.subjectId, client_id: 'web', scope: 'api1.read', aud: 'api1', auth_time: Math.floor(clock.now() / 1000),
    });
  });

  it('tells users apart', async () => {
    const res = await password({ username: 'bob', password: bob.password, scope: 'api1.read' });
    expect(res.status).toBe(200);
    expect(accessClaims(res.body.access_token).sub).toBe(bob.subjectId);
  });

  it('gives an unknown user and a wrong password byte-identical invalid_grant responses', async () => {
    const send = async (username: string, pw: string) => {
      const r = await fetch(`${server.url}/connect/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...auth('web') },
        body: new URLSearchParams({ grant_type: 'password', username, password: pw, scope: 'api1.read' }),
      });
      const headers = [...r.headers].filter(([name]) => name !== 'date' && name !== 'x-request-id');
      return { status: r.status, headers, body: await r.text() };
    };
    const unknownUser = await send('mallory', alice.password);
    const wrongPassword = await send('alice', 'not-alices-password');
    const otherUsersPassword = await send('bob', alice.password);
    expect(unknownUser.status).toBe(400);
    expect(JSON.parse(unknownUser.body)).toEqual({ error: 'invalid_grant', error_description: 'The username or password is incorrect.' });
    expect(wrongPassword).toEqual(unknownUser);
    expect(otherUsersPassword).toEqual(unknownUser);
  });

  // The users' hashes here use ln=10, as hashes made by other tools may: an unknown username
  // must cost what a wrong password costs, or response times list the usernames that exist.
  it('takes about as long for an unknown user as for a wrong password', async () => {
    const time = async (username: string): Promise<number> => {
      const start = performance.now();
      const res = await password({ username, password: 'not-the-password', scope: 'api1.read' });
      expect(res.body.error).toBe('invalid_grant');
      return performance.now() - start;
    };
    await time('alice');
    await time('mallory');
    const unknown: number[] = [];
    const wrong: number[] = [];
    for (let i = 0; i < 7; i++) {
      unknown.push(await time('mallory'));
      wrong.push(await time('alice'));
    }
    const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const ratio = median(unknown) / median(wrong);
    expect(ratio, `unknown user ${median(unknown).toFixed(1)} ms, wrong password ${median(wrong).toFixed(1)} ms`).toBeLessThan(4);
    expect(ratio).toBeGreaterThan(1 / 4);
  });

  it.each([
    ['username', { password: alice.password }],
    ['password', { username: 'alice' }],
    ['both', {}],
  ])('answers invalid_request when %s is missing', async (_, params: Record<string, string>) => {
    const res = await password({ ...params, scope: 'api1.read' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_request', error_description: 'The username and password parameters are required.' });
  });

  // RFC 6749 §3.1: a parameter sent without a value is treated as omitted.
  it('treats an empty password as a missing one', async () => {
    const res = await password({ username: 'alice', password: '', scope: 'api1.read' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_request', error_description: 'The username and password parameters are required.' });
  });

  it('returns a refresh token when offline_access is requested, and none otherwise', async () => {
    const offline = await password({ username: 'alice', password: alice.password, scope: 'api1.read offline_access' });
    expect(offline.status).toBe(200);
    expect(offline.body).toMatchObject({ scope: 'api1.read offline_access', refresh_token: expect.stringMatching(handlePattern) });
    const online = await password({ username: 'alice', password: alice.password, scope: 'api1.read' });
    expect(online.body).not.toHaveProperty('refresh_token');
  });

  it('returns an id_token for openid, with the user claims the granted identity scopes release', async () => {
    const res = await password({ username: 'alice', password: alice.password, scope: 'openid profile api1.read' });
    expect(res.status).toBe(200);
    expect(decodeJwt(res.body.id_token as string)).toMatchObject({
      iss: server.url, sub: alice.subjectId, aud: 'web', auth_time: Math.floor(clock.now() / 1000), name: 'Alice Smith',
    });
  });

  it('answers unauthorized_client to a client not allowed the password grant', async () => {
    const res = await password({ username: 'alice', password: alice.password, scope: 'api1.read' }, 'm2m');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'unauthorized_client', error_description: 'The client is not allowed to use this grant type.' });
  });
});

describe('client_credentials and refresh tokens', () => {
  it('never returns a refresh token: offline_access is invalid_scope even for a client allowed offline access', async () => {
    const res = await tokenRequest(server, 'm2m', { grant_type: 'client_credentials', scope: 'api1.read offline_access' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_scope', error_description: 'Identity scopes and offline_access need a user; client_credentials has none.' });
  });

  it('issues a client token without auth_time and with the client as subject', async () => {
    const res = await tokenRequest(server, 'm2m', { grant_type: 'client_credentials', scope: 'api1.read' });
    expect(res.status).toBe(200);
    expect(res.body).not.toHaveProperty('refresh_token');
    const claims = accessClaims(res.body.access_token);
    expect(claims).toMatchObject({ sub: 'm2m', client_id: 'm2m' });
    expect(claims).not.toHaveProperty('auth_time');
  });
});
