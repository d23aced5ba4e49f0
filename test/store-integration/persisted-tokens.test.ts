/**
 * What the running service writes to the SQL stores: handles only as SHA-256 hashes, and
 * one-time grants that exactly one of several racing nodes can redeem.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import type { UserConfig } from '../../src/config/schema.js';
import { hashPassword } from '../../src/oauth/password-hash.js';
import { hashSecret } from '../../src/sdk/hash.js';
import { hashKey } from '../../src/store/hash-key.js';
import { createTestSchema, postgresSkipReason, type TestSchema } from '../support/pg.js';
import { basic, firstPartyPlugins, postForm, startServer, type TestServer } from '../support/server.js';

const pgSkip = await postgresSkipReason('PostgreSQL store integration tests');

async function serviceConfig(store: string): Promise<UserConfig> {
  return {
    issuer: 'https://svc.store-integration.test',
    store,
    pluginDirs: [firstPartyPlugins],
    apiScopes: [{ name: 'api1.read' }],
    apiResources: [{ name: 'api1', scopes: ['api1.read'], secrets: [{ value: hashSecret('api1-secret') }] }],
    users: [{ subjectId: 'alice-1', username: 'alice', password: await hashPassword('alice-password', { ln: 10, r: 8, p: 1 }) }],
    clients: [
      {
        clientId: 'app',
        clientSecrets: [{ value: hashSecret('app-secret') }],
        allowedGrantTypes: ['password', 'refresh_token'],
        allowedScopes: ['api1.read'],
        accessTokenType: 'reference',
        allowOfflineAccess: true,
      },
    ],
  };
}

const asApp = { authorization: basic('app', 'app-secret') };

async function userTokens(node: TestServer): Promise<{ access: string; refresh: string }> {
  const res = await postForm(
    `${node.url}/connect/token`,
    { grant_type: 'password', username: 'alice', password: 'alice-password', scope: 'api1.read offline_access' },
    asApp,
  );
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { access: res.body.access_token as string, refresh: res.body.refresh_token as string };
}

function expectOnlyHashes(rows: Record<string, unknown>[], handles: string[]): void {
  const dump = JSON.stringify(rows);
  const keys = rows.map((r) => r.key);
  for (const handle of handles) {
    expect(dump).not.toContain(handle);
    expect(keys).toContain(hashKey(handle));
  }
}

describe('SQLite', () => {
  let dir: string;
  let node: TestServer;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-store-integration-'));
    node = await startServer(await serviceConfig('sqlite:./svc.db'), { configDir: dir });
  });
  afterAll(async () => {
    await node?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('stores reference and refresh tokens under their SHA-256 only', async () => {
    const { access, refresh } = await userTokens(node);
    const raw = new BetterSqlite3(join(dir, 'svc.db'), { readonly: true });
    try {
      const rows = raw.prepare('select * from persisted_grants').all() as Record<string, unknown>[];
      expectOnlyHashes(rows, [access, refresh]);
      expect(rows.find((r) => r.key === hashKey(access))).toMatchObject({ type: 'reference_token', client_id: 'app', subject_id: 'alice-1' });
    } finally {
      raw.close();
    }
  });
});

describe.skipIf(pgSkip)('PostgreSQL, two nodes in one process', () => {
  let schema: TestSchema;
  let a: TestServer;
  let b: TestServer;

  beforeAll(async () => {
    schema = await createTestSchema('store_integration');
    const config = await serviceConfig(schema.url);
    [a, b] = await Promise.all([startServer(config), startServer(config)]);
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await schema?.drop();
  });

  it('stores reference and refresh tokens under their SHA-256 only', async () => {
    const { access, refresh } = await userTokens(a);
    expectOnlyHashes(await schema.query('select * from persisted_grants'), [access, refresh]);
  });

  it('lets exactly one of many concurrent refreshes of one token across nodes consume it', async () => {
    const { refresh } = await userTokens(a);
    const [seenA, seenB] = [a.logs.length, b.logs.length];
    const attempts = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        postForm(`${(i % 2 ? a : b).url}/connect/token`, { grant_type: 'refresh_token', refresh_token: refresh }, asApp),
      ),
    );

    // Within the reuse interval the losers are refused without revoking the family, so the one
    // request that spent the token keeps what it was given.
    const won = attempts.filter((r) => r.status === 200);
    expect(won).toHaveLength(1);
    expect(attempts.filter((r) => r.status !== 200).every((r) => r.status === 400 && r.body.error === 'invalid_grant')).toBe(true);
    const raceLogs = [...a.logs.slice(seenA), ...b.logs.slice(seenB)];
    expect(raceLogs.filter((l) => String(l.msg).includes('family revoked'))).toEqual([]);
    const after = await postForm(`${a.url}/connect/token`, { grant_type: 'refresh_token', refresh_token: refresh }, asApp);
    expect(after.body.error).toBe('invalid_grant');
    const next = await postForm(`${b.url}/connect/token`, { grant_type: 'refresh_token', refresh_token: won[0]!.body.refresh_token as string }, asApp);
    expect(next.status).toBe(200);
  });

  it('started both nodes together on an empty schema with one set of signing keys', async () => {
    const [jwksA, jwksB] = await Promise.all(
      [a, b].map(async (n) => (await fetch(`${n.url}/.well-known/openid-configuration/jwks`)).text()),
    );
    expect(jwksB).toBe(jwksA);
    expect(await schema.query('select kid from signing_keys')).toHaveLength(2);
  });
});
