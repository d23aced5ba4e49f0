/**
 * One refresh token presented twice at the same moment is reuse too (RFC 9700 §4.14.2; issue 5)
 * for a client that turned the reuse interval off (`refreshTokenReuseInterval: 0`): at most one
 * request gets tokens, and afterwards no refresh token of that family works — not even one the
 * winner was just given. With the interval on, see refresh-token-reuse-interval.test.ts.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';
import { baseConfig, clients, invalidGrant, tokenRequest, userToken } from '../fixtures/grant-plugins/world.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ ...baseConfig, clients: Object.values(clients).map((c) => (c.clientId === 'web' ? { ...c, refreshTokenReuseInterval: 0 } : c)) });
});
afterAll(() => server.close());

const refresh = (refreshToken: string) => tokenRequest(server, 'web', { grant_type: 'refresh_token', refresh_token: refreshToken });

it('revokes the family when the same refresh token races itself', async () => {
  for (let round = 0; round < 5; round++) {
    const issued = await userToken(server, { scope: 'api1.read offline_access' });
    const first = issued.refresh_token as string;
    // One rotation first, so the family has an older, used member as well.
    const rotated = await refresh(first);
    expect(rotated.status).toBe(200);
    const token = rotated.body.refresh_token as string;

    const results = await Promise.all([refresh(token), refresh(token)]);
    expect(results.filter((r) => r.status === 200).length).toBeLessThanOrEqual(1);
    for (const r of results.filter((r) => r.status !== 200)) {
      expect(r.status).toBe(400);
      expect(r.body).toEqual(invalidGrant('The refresh token is invalid.'));
    }
    for (const given of results.map((r) => r.body.refresh_token).filter((t): t is string => typeof t === 'string')) {
      const later = await refresh(given);
      expect(later.status).toBe(400);
      expect(later.body).toEqual(invalidGrant('The refresh token is invalid.'));
    }
  }
});
