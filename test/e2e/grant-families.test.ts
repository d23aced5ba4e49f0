/**
 * Every token issued from one redemption belongs to one grant family, and revoking the family
 * revokes them all (issue 14, point 2): revoking a refresh token (RFC 7009 §2.1) ends the
 * reference access tokens of its grant, and a device code redeemed a second time ends the
 * tokens of the first redemption (RFC 6749 §4.1.2 by analogy).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret } from '../../src/sdk/hash.js';
import { basic, postForm, startServer, type TestServer } from '../support/server.js';
import { auth, configWith, delegate, invalidGrant, manualClock, tokenRequest, userToken } from '../fixtures/grant-plugins/world.js';
import { codesFor, decideOverHttp, deviceConfig, deviceClients, alice as deviceAlice, poll } from '../device/helpers.js';

async function isActive(server: TestServer, token: string): Promise<boolean> {
  const res = await postForm(`${server.url}/connect/introspect`, { token }, { authorization: basic('api1', 'api1-secret') });
  expect(res.status).toBe(200);
  return res.body.active as boolean;
}

describe('revoking a refresh token', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer(configWith([]));
  });
  afterAll(() => server.close());

  const revoke = (token: string) => postForm(`${server.url}/connect/revocation`, { token, token_type_hint: 'refresh_token' }, auth('web-ref'));

  it('makes the reference access token of the same grant inactive, and delegation refuses it', async () => {
    const issued = await userToken(server, { clientId: 'web-ref', scope: 'api1.read offline_access' });
    const access = issued.access_token;
    expect(await isActive(server, access)).toBe(true);

    expect((await revoke(issued.refresh_token as string)).status).toBe(200);

    expect(await isActive(server, access)).toBe(false);
    const delegated = await delegate(server, access);
    expect(delegated.status).toBe(400);
    expect(delegated.body).toEqual(invalidGrant('The token is invalid.'));
  });

  it('makes the reference access tokens of every rotation of the grant inactive', async () => {
    const issued = await userToken(server, { clientId: 'web-ref', scope: 'api1.read offline_access' });
    const rotated = await tokenRequest(server, 'web-ref', { grant_type: 'refresh_token', refresh_token: issued.refresh_token as string });
    expect(rotated.status).toBe(200);

    expect((await revoke(rotated.body.refresh_token as string)).status).toBe(200);

    expect(await isActive(server, issued.access_token)).toBe(false);
    expect(await isActive(server, rotated.body.access_token as string)).toBe(false);
  });

  it('leaves the access tokens of another grant of the same user alone', async () => {
    const revoked = await userToken(server, { clientId: 'web-ref', scope: 'api1.read offline_access' });
    const other = await userToken(server, { clientId: 'web-ref', scope: 'api1.read offline_access' });
    await revoke(revoked.refresh_token as string);
    expect(await isActive(server, other.access_token)).toBe(true);
  });
});

describe('a device code redeemed a second time', () => {
  const clock = manualClock();
  let server: TestServer;
  beforeAll(async () => {
    const tv = { ...deviceClients[0]!, accessTokenType: 'reference' as const };
    server = await startServer(
      await deviceConfig({
        clients: [tv, ...deviceClients.slice(1)],
        apiResources: [{ name: 'api1', scopes: ['api1.read', 'api1.write'], secrets: [{ value: hashSecret('api1-secret') }] }],
      }),
      { clock },
    );
  });
  afterAll(() => server.close());

  it('revokes the tokens of the first redemption', async () => {
    const codes = await codesFor(server, { client_id: 'tv', scope: 'api1.read offline_access' });
    await decideOverHttp(server.url, codes.verification_uri_complete, deviceAlice, 'approve');
    const first = await poll(server, codes.device_code);
    expect(first.status).toBe(200);
    expect(await isActive(server, first.body.access_token as string)).toBe(true);

    clock.advance(codes.interval + 1);
    const second = await poll(server, codes.device_code);

    expect(second.status).toBe(400);
    expect(second.body).toEqual(invalidGrant('The device code has already been used.'));
    expect(await isActive(server, first.body.access_token as string)).toBe(false);
    const refreshed = await postForm(`${server.url}/connect/token`, { grant_type: 'refresh_token', refresh_token: first.body.refresh_token as string, client_id: 'tv' });
    expect(refreshed.status).toBe(400);
    expect(refreshed.body).toEqual(invalidGrant('The refresh token is invalid.'));
  });

  it('answers invalid_grant to one of two polls racing on an approved code, and the winner keeps its tokens', async () => {
    for (let round = 0; round < 5; round++) {
      const codes = await codesFor(server, { client_id: 'tv', scope: 'api1.read offline_access' });
      await decideOverHttp(server.url, codes.verification_uri_complete, deviceAlice, 'approve');

      const results = await Promise.all([poll(server, codes.device_code), poll(server, codes.device_code)]);

      const won = results.filter((r) => r.status === 200);
      const lost = results.filter((r) => r.status !== 200);
      expect(won).toHaveLength(1);
      expect(lost.map((r) => ({ status: r.status, body: r.body }))).toEqual([
        { status: 400, body: invalidGrant('The device code has already been used.') },
      ]);
      expect(await isActive(server, won[0]!.body.access_token as string)).toBe(true);
      clock.advance(60);
    }
  });
});
