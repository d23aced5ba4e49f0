/**
 * Polling the token endpoint with a device code (RFC 8628 §3.4–3.5): every answer before,
 * during and after the user's decision, with an injected clock instead of sleeping.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { basic, postForm, startServer, type TestServer } from '../support/server.js';
import { alice, bob, codesFor, decideOverHttp, deviceConfig, deviceGrantType, manualClock, poll } from '../device/helpers.js';

const clock = manualClock(Date.parse('2030-01-01T00:00:00Z'));
let server: TestServer;

beforeAll(async () => {
  server = await startServer(await deviceConfig(), { clock });
});
afterAll(() => server.close());

const pending = { error: 'authorization_pending', error_description: 'The user has not yet approved the request.' };

describe('before the user decides', () => {
  it('answers authorization_pending', async () => {
    const codes = await codesFor(server);
    const res = await poll(server, codes.device_code);
    expect(res.status).toBe(400);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toEqual(pending);
  });

  it('answers slow_down to a poll sooner than the interval, and the interval grows by 5 s', async () => {
    const codes = await codesFor(server);
    expect(codes.interval).toBe(5);
    expect((await poll(server, codes.device_code)).body).toEqual(pending);

    clock.advance(4);
    const early = await poll(server, codes.device_code);
    expect(early.status).toBe(400);
    expect(early.body).toEqual({ error: 'slow_down', error_description: 'Polling too fast; wait at least 10 seconds between requests.' });

    // The old interval is no longer enough: 10 s is enforced now.
    clock.advance(6);
    expect((await poll(server, codes.device_code)).body.error).toBe('slow_down');
    // ... and 15 s after that second slow_down.
    clock.advance(14);
    expect((await poll(server, codes.device_code)).body.error).toBe('slow_down');
    clock.advance(20);
    expect((await poll(server, codes.device_code)).body).toEqual(pending);
  });

  it('lets a client that keeps the interval poll without slow_down', async () => {
    const codes = await codesFor(server);
    for (let i = 0; i < 4; i++) {
      expect((await poll(server, codes.device_code)).body).toEqual(pending);
      clock.advance(5);
    }
  });

  it('answers expired_token once the code outlives expires_in', async () => {
    const codes = await codesFor(server);
    clock.advance(299);
    expect((await poll(server, codes.device_code)).body).toEqual(pending);
    clock.advance(1);
    const res = await poll(server, codes.device_code);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'expired_token', error_description: 'The device code has expired.' });
  });

  it('answers invalid_grant to a device code issued to another client, without disturbing the owner', async () => {
    const codes = await codesFor(server);
    const res = await poll(server, codes.device_code, {}, { authorization: basic('cli', 'cli-secret') });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_grant', error_description: 'The device code is invalid.' });
    // The other client's attempt did not count as a poll of the owner.
    expect((await poll(server, codes.device_code)).body).toEqual(pending);
  });

  it('answers invalid_grant to an unknown device code and invalid_request to a missing one', async () => {
    expect((await poll(server, 'not-a-device-code')).body).toEqual({ error: 'invalid_grant', error_description: 'The device code is invalid.' });
    const missing = await postForm(`${server.url}/connect/token`, { grant_type: deviceGrantType, client_id: 'tv' });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ error: 'invalid_request', error_description: 'The device_code parameter is required.' });
  });

  it('still authenticates the client: a confidential client needs its secret to poll', async () => {
    const codes = await codesFor(server, { client_id: 'cli', client_secret: 'cli-secret' });
    expect((await poll(server, codes.device_code, { client_id: 'cli' })).status).toBe(401);
    expect((await poll(server, codes.device_code, {}, { authorization: basic('cli', 'cli-secret') })).body).toEqual(pending);
  });
});

describe('after the user decides', () => {
  it('denied: access_denied', async () => {
    const codes = await codesFor(server);
    const done = await decideOverHttp(server.url, codes.verification_uri_complete, alice, 'deny');
    expect(done.html).toContain('Request denied');
    const res = await poll(server, codes.device_code);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'access_denied', error_description: 'The user denied the request.' });
  });

  it('approved: tokens for the user who approved, then invalid_grant for every later poll', async () => {
    const codes = await codesFor(server, { client_id: 'tv', scope: 'api1.read' });
    await decideOverHttp(server.url, codes.verification_uri_complete, bob, 'approve');
    const res = await poll(server, codes.device_code);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 3600, scope: 'api1.read' });
    expect(decodeJwt(res.body.access_token as string)).toMatchObject({
      sub: bob.subjectId, client_id: 'tv', scope: 'api1.read', aud: 'api1', auth_time: Math.floor(clock.now() / 1000),
    });

    clock.advance(5);
    const again = await poll(server, codes.device_code);
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ error: 'invalid_grant', error_description: 'The device code has already been used.' });
  });

  it('with openid and offline_access: an id_token with the user’s claims and a working refresh token', async () => {
    const codes = await codesFor(server, { client_id: 'tv', scope: 'openid profile email offline_access api1.read' });
    await decideOverHttp(server.url, codes.verification_uri_complete, alice, 'approve');
    const res = await poll(server, codes.device_code);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ scope: 'openid profile email offline_access api1.read', refresh_token: expect.any(String), id_token: expect.any(String) });
    expect(decodeJwt(res.body.id_token as string)).toMatchObject({
      iss: server.url, sub: alice.subjectId, aud: 'tv', name: 'Alice Smith', email: 'alice@example.com',
    });

    const refreshed = await postForm(`${server.url}/connect/token`, { grant_type: 'refresh_token', client_id: 'tv', refresh_token: res.body.refresh_token as string });
    expect(refreshed.status).toBe(200);
    expect(decodeJwt(refreshed.body.access_token as string).sub).toBe(alice.subjectId);
  });

  it('without openid or offline_access: neither an id_token nor a refresh token', async () => {
    const codes = await codesFor(server, { client_id: 'tv', scope: 'api1.read' });
    await decideOverHttp(server.url, codes.verification_uri_complete, alice, 'approve');
    const res = await poll(server, codes.device_code);
    expect(res.status).toBe(200);
    expect(res.body).not.toHaveProperty('id_token');
    expect(res.body).not.toHaveProperty('refresh_token');
  });

  it('redeems exactly once when polls race', async () => {
    const codes = await codesFor(server, { client_id: 'tv', scope: 'api1.read' });
    await decideOverHttp(server.url, codes.verification_uri_complete, alice, 'approve');
    const results = await Promise.all(Array.from({ length: 8 }, () => poll(server, codes.device_code)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of results.filter((r) => r.status !== 200)) expect(['slow_down', 'invalid_grant']).toContain(r.body.error);
  });

  it('an approved code still expires: expired_token after expires_in', async () => {
    const codes = await codesFor(server, { client_id: 'tv', scope: 'api1.read' });
    await decideOverHttp(server.url, codes.verification_uri_complete, alice, 'approve');
    clock.advance(301);
    expect((await poll(server, codes.device_code)).body.error).toBe('expired_token');
  });
});
