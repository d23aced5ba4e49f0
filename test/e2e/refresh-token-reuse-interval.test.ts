/**
 * The refresh token reuse interval (issue 14, point 4): a client that sends one refresh token
 * twice at the same moment (two tabs, a retry after a time-out) gets tokens once and
 * `invalid_grant` once, and the tokens it got keep working. Presenting a used refresh token
 * after the interval is still reuse, and revokes the family (RFC 9700 §4.14.2).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret } from '../../src/sdk/hash.js';
import { startServer, type TestServer } from '../support/server.js';
import { configWith, invalidGrant, manualClock, tokenRequest, userToken } from '../fixtures/grant-plugins/world.js';

const reuseClient = (clientId: string, refreshTokenReuseInterval?: number) => ({
  clientId,
  clientSecrets: [{ value: hashSecret(`${clientId}-secret`) }],
  allowedGrantTypes: ['password', 'refresh_token'],
  allowedScopes: ['api1.read'],
  allowOfflineAccess: true,
  ...(refreshTokenReuseInterval === undefined ? {} : { refreshTokenReuseInterval }),
});

const refreshTokenIsInvalid = invalidGrant('The refresh token is invalid.');

describe('with the default reuse interval', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer(configWith([reuseClient('spa')]));
  });
  afterAll(() => server.close());

  const refresh = (token: string) => tokenRequest(server, 'spa', { grant_type: 'refresh_token', refresh_token: token });

  it('answers one of two concurrent refreshes with tokens and the other with invalid_grant, and the new refresh token works', async () => {
    for (let round = 0; round < 5; round++) {
      const token = (await userToken(server, { clientId: 'spa', scope: 'api1.read offline_access' })).refresh_token as string;

      const results = await Promise.all([refresh(token), refresh(token)]);

      const won = results.filter((r) => r.status === 200);
      expect(won).toHaveLength(1);
      expect(results.filter((r) => r.status !== 200).map((r) => ({ status: r.status, body: r.body }))).toEqual([
        { status: 400, body: refreshTokenIsInvalid },
      ]);
      const next = await refresh(won[0]!.body.refresh_token as string);
      expect(next.body).not.toHaveProperty('error');
      expect(next.status).toBe(200);
    }
  });
});

describe('after the reuse interval', () => {
  const clock = manualClock();
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer(configWith([reuseClient('spa', 10)]), { clock });
  });
  afterAll(() => server.close());

  const refresh = (token: string) => tokenRequest(server, 'spa', { grant_type: 'refresh_token', refresh_token: token });

  it('refuses a second use within the interval without revoking, and revokes the family on a use after it', async () => {
    const first = (await userToken(server, { clientId: 'spa', scope: 'api1.read offline_access' })).refresh_token as string;
    const rotated = await refresh(first);
    expect(rotated.status).toBe(200);
    const second = rotated.body.refresh_token as string;

    clock.advance(9);
    expect((await refresh(first)).body).toEqual(refreshTokenIsInvalid);
    const third = await refresh(second);
    expect(third.status).toBe(200);

    clock.advance(11);
    expect((await refresh(second)).body).toEqual(refreshTokenIsInvalid);
    const afterTheft = await refresh(third.body.refresh_token as string);
    expect(afterTheft.status).toBe(400);
    expect(afterTheft.body).toEqual(refreshTokenIsInvalid);
  });
});
