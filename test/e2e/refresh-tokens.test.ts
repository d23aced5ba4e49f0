/**
 * Refresh tokens (RFC 6749 §6, OAuth 2.0 Security BCP / RFC 9700 §4.14.2; issue 5): one-time use
 * with rotation, family revocation on reuse, scope narrowing, absolute and sliding lifetimes,
 * client binding, revocation, storage.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashSecret } from '../../src/sdk/hash.js';
import { postForm, startServer, type TestServer } from '../support/server.js';
import {
  accessClaims, alice, auth, baseConfig, configWith, invalidGrant, manualClock, tokenRequest, userToken,
} from '../fixtures/grant-plugins/world.js';
import { handlePattern } from '../support/handle-pattern.js';

const lifetimeClient = (clientId: string, absolute: number, sliding: number) => ({
  clientId,
  clientSecrets: [{ value: hashSecret(`${clientId}-secret`) }],
  allowedGrantTypes: ['password', 'refresh_token'],
  allowedScopes: ['api1.read', 'api1.write'],
  allowOfflineAccess: true,
  absoluteRefreshTokenLifetime: absolute,
  slidingRefreshTokenLifetime: sliding,
});

const clock = manualClock();
let server: TestServer;
beforeAll(async () => {
  server = await startServer(
    configWith([lifetimeClient('rt-absolute', 100, 0), lifetimeClient('rt-sliding', 1000, 30), lifetimeClient('rt-capped', 60, 30)]),
    { clock },
  );
});
afterAll(() => server.close());

const refresh = (refreshToken: string, clientId = 'web', scope?: string) =>
  tokenRequest(server, clientId, { grant_type: 'refresh_token', refresh_token: refreshToken, ...(scope === undefined ? {} : { scope }) });

async function offlineToken(clientId = 'web', scope = 'api1.read api1.write offline_access'): Promise<string> {
  const res = await userToken(server, { clientId, scope });
  expect(res.refresh_token).toEqual(expect.stringMatching(handlePattern));
  return res.refresh_token as string;
}

const refreshTokenIsInvalid = invalidGrant('The refresh token is invalid.');

describe('rotation', () => {
  it('buys a new access token and a new refresh token for the same user; the used one is rejected', async () => {
    const first = await offlineToken();
    const res = await refresh(first);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      access_token: expect.any(String), token_type: 'Bearer', expires_in: 3600, scope: 'api1.read api1.write offline_access',
      refresh_token: expect.stringMatching(handlePattern),
    });
    expect(res.body.refresh_token).not.toBe(first);
    expect(accessClaims(res.body.access_token)).toMatchObject({ sub: alice.subjectId, client_id: 'web', auth_time: expect.any(Number) });

    const again = await refresh(first);
    expect(again.status).toBe(400);
    expect(again.body).toEqual(refreshTokenIsInvalid);
  });

  it('chains: each rotated token works exactly once', async () => {
    let token = await offlineToken();
    for (let i = 0; i < 3; i++) {
      const res = await refresh(token);
      expect(res.status).toBe(200);
      token = res.body.refresh_token as string;
    }
  });

  it('revokes the whole family when a used refresh token is presented again: the newest one stops working too', async () => {
    const first = await offlineToken();
    const second = (await refresh(first)).body.refresh_token as string;
    const third = (await refresh(second)).body.refresh_token as string;

    clock.advance(6); // past the default reuse interval (5 s), within which reuse is only refused
    expect((await refresh(first)).body).toEqual(refreshTokenIsInvalid);
    const newest = await refresh(third);
    expect(newest.status).toBe(400);
    expect(newest.body).toEqual(refreshTokenIsInvalid);
  });

  it('leaves other families of the same user alone when one family is revoked for reuse', async () => {
    const stolen = await offlineToken();
    const otherDevice = await offlineToken();
    await refresh(stolen);
    clock.advance(6);
    await refresh(stolen); // reuse
    expect((await refresh(otherDevice)).status).toBe(200);
  });

  it('answers invalid_request without a refresh_token parameter', async () => {
    const res = await tokenRequest(server, 'web', { grant_type: 'refresh_token' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_request', error_description: 'The refresh_token parameter is required.' });
  });

  it('answers invalid_grant for an unknown refresh token', async () => {
    const res = await refresh('A'.repeat(43));
    expect(res.status).toBe(400);
    expect(res.body).toEqual(refreshTokenIsInvalid);
  });
});

describe('scope', () => {
  it('allows a narrower scope', async () => {
    const res = await refresh(await offlineToken(), 'web', 'api1.read offline_access');
    expect(res.status).toBe(200);
    expect(res.body.scope).toBe('api1.read offline_access');
    expect(accessClaims(res.body.access_token).scope).toBe('api1.read offline_access');
  });

  it('refuses a wider scope with invalid_scope', async () => {
    const res = await refresh(await offlineToken('web', 'api1.read offline_access'), 'web', 'api1.read api1.write offline_access');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_scope', error_description: 'A requested scope was not granted originally.' });
  });

  // RFC 6749 §6: "If a new refresh token is issued, the refresh token scope MUST be identical to
  // that of the refresh token included by the client in the request." Narrowing one access
  // token must not shrink what the family may ask for later.
  it('keeps the original scope on the rotated refresh token after a narrower request', async () => {
    const narrowed = await refresh(await offlineToken(), 'web', 'api1.read offline_access');
    expect(narrowed.status).toBe(200);
    const full = await refresh(narrowed.body.refresh_token as string, 'web', 'api1.read api1.write offline_access');
    expect(full.body).not.toHaveProperty('error');
    expect(full.status).toBe(200);
    expect(full.body.scope).toBe('api1.read api1.write offline_access');
  });

  it('does not end the session when a narrower scope leaves out offline_access', async () => {
    const token = await offlineToken();
    const res = await refresh(token, 'web', 'api1.read');
    expect(res.status).toBe(200);
    expect(res.body.scope).toBe('api1.read');
    // Either a rotated refresh token came back, or the presented one is still good.
    const next = await refresh((res.body.refresh_token as string | undefined) ?? token);
    expect(next.status).toBe(200);
  });

  // A refused request issued nothing, so it must not use the token up: otherwise the client's
  // corrected retry counts as reuse and the user's whole family is revoked.
  it('does not use up the refresh token on a request refused for its scope', async () => {
    const token = await offlineToken('web', 'api1.read offline_access');
    expect((await refresh(token, 'web', 'api1.read api1.write offline_access')).body.error).toBe('invalid_scope');
    const retry = await refresh(token);
    expect(retry.body).not.toHaveProperty('error');
    expect(retry.status).toBe(200);
  });
});

describe('lifetimes', () => {
  it('ends the family at the absolute lifetime, however often it was rotated', async () => {
    let token = await offlineToken('rt-absolute');
    clock.advance(50);
    let res = await refresh(token, 'rt-absolute');
    expect(res.status).toBe(200);
    token = res.body.refresh_token as string;
    clock.advance(45);
    res = await refresh(token, 'rt-absolute');
    expect(res.status).toBe(200); // 95 s after sign-in
    token = res.body.refresh_token as string;
    clock.advance(6);
    res = await refresh(token, 'rt-absolute'); // 101 s
    expect(res.status).toBe(400);
    expect(res.body).toEqual(invalidGrant('The refresh token has expired.'));
  });

  it('expires a refresh token unused for the sliding lifetime, and slides on each use', async () => {
    let token = await offlineToken('rt-sliding');
    for (let i = 0; i < 3; i++) {
      clock.advance(25); // within the 30 s window each time: 75 s in all
      const res = await refresh(token, 'rt-sliding');
      expect(res.status).toBe(200);
      token = res.body.refresh_token as string;
    }
    clock.advance(31);
    const res = await refresh(token, 'rt-sliding');
    expect(res.status).toBe(400);
    expect(res.body).toEqual(invalidGrant('The refresh token has expired.'));
  });

  it('never slides past the absolute lifetime', async () => {
    let token = await offlineToken('rt-capped');
    clock.advance(25);
    token = (await refresh(token, 'rt-capped')).body.refresh_token as string;
    clock.advance(25);
    const res = await refresh(token, 'rt-capped'); // 50 s: fine
    expect(res.status).toBe(200);
    clock.advance(15); // 65 s: inside the sliding window, past the absolute 60 s
    expect((await refresh(res.body.refresh_token as string, 'rt-capped')).body).toEqual(invalidGrant('The refresh token has expired.'));
  });
});

describe('binding and revocation', () => {
  it('answers invalid_grant to another client presenting the refresh token, and the owner can still use it', async () => {
    const token = await offlineToken('web');
    const res = await refresh(token, 'rt-sliding');
    expect(res.status).toBe(400);
    expect(res.body).toEqual(refreshTokenIsInvalid);
    expect((await refresh(token, 'web')).status).toBe(200);
  });

  it('answers invalid_grant after the refresh token was revoked at the revocation endpoint', async () => {
    const token = await offlineToken();
    const revoked = await postForm(`${server.url}/connect/revocation`, { token, token_type_hint: 'refresh_token' }, auth('web'));
    expect(revoked.status).toBe(200);
    expect((await refresh(token)).body).toEqual(refreshTokenIsInvalid);
  });

  it('revokes the family when any rotated member is revoked', async () => {
    const first = await offlineToken();
    const second = (await refresh(first)).body.refresh_token as string;
    await postForm(`${server.url}/connect/revocation`, { token: first }, auth('web'));
    expect((await refresh(second)).body).toEqual(refreshTokenIsInvalid);
  });

  it('ignores another client’s attempt to revoke it', async () => {
    const token = await offlineToken('web');
    const res = await postForm(`${server.url}/connect/revocation`, { token }, auth('rt-sliding'));
    expect(res.status).toBe(200);
    expect((await refresh(token)).status).toBe(200);
  });
});

describe('storage', () => {
  it('keeps only a hash of the refresh token in the store', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-refresh-'));
    const sqlite = await startServer({ ...baseConfig, store: `sqlite:${join(dir, 'svc.db')}` });
    try {
      const res = await userToken(sqlite, { scope: 'api1.read offline_access' });
      const token = res.refresh_token as string;
      expect((await tokenRequest(sqlite, 'web', { grant_type: 'refresh_token', refresh_token: token })).status).toBe(200);
      const bytes = readdirSync(dir).map((f) => readFileSync(join(dir, f)).toString('latin1')).join('');
      expect(bytes.length).toBeGreaterThan(0);
      expect(bytes).not.toContain(token);
      expect(bytes).not.toContain(Buffer.from(token, 'base64url').toString('latin1'));
    } finally {
      await sqlite.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
