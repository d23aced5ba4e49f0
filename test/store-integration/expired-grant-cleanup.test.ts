/**
 * The running service sweeps expired records out of its SQLite file every `cleanupInterval`
 * seconds: reference tokens and the replay cache of private_key_jwt assertion ids clean
 * themselves, live records stay, and a swept assertion id does not make its assertion usable
 * again (it has expired by then).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { SignJWT, decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { timeOrderedKey } from '../../src/sdk/store-keys.js';
import { hashKey } from '../../src/store/hash-key.js';
import { postForm, startServer, type TestServer } from '../support/server.js';
import { makeKey, publicJwk, type TestKey } from '../plugins/private-key-jwt/helpers.js';

const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
const issuer = 'https://svc.cleanup.test';

let dir: string;
let server: TestServer;
let key: TestKey;
let skipped = 0;
const clock = { now: () => Date.now() + skipped };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-cleanup-'));
  key = await makeKey('P-256');
  server = await startServer(
    {
      issuer,
      store: 'sqlite:./svc.db',
      cleanupInterval: 1,
      apiScopes: [{ name: 'api1.read' }],
      apiResources: [{ name: 'api1', scopes: ['api1.read'] }],
      clients: [
        {
          clientId: 'ref-app',
          clientSecrets: [{ type: 'JsonWebKey', value: JSON.stringify(publicJwk(key)) }],
          allowedGrantTypes: ['client_credentials'],
          allowedScopes: ['api1.read'],
          accessTokenType: 'reference',
          accessTokenLifetime: 60,
        },
      ],
    },
    { configDir: dir, clock },
  );
});

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

function rows(): Array<{ key: string; type: string }> {
  const db = new BetterSqlite3(join(dir, 'svc.db'), { readonly: true });
  try {
    return db.prepare("select key, type from persisted_grants where type in ('reference_token', 'assertion_jti')").all() as Array<{ key: string; type: string }>;
  } finally {
    db.close();
  }
}

async function assertion(jti: string): Promise<string> {
  const now = Math.floor(clock.now() / 1000);
  return new SignJWT({ jti })
    .setProtectedHeader({ alg: 'ES256' })
    .setIssuer('ref-app')
    .setSubject('ref-app')
    .setAudience(issuer)
    .setIssuedAt(now)
    .setExpirationTime(now + 60)
    .sign(key.privateKey);
}

/** Where the plugin's record of a used jti is kept: its namespace, the client and the jti, hashed behind the assertion's exp. */
function jtiRowKey(signed: string, jti: string): string {
  const { exp } = decodeJwt(signed);
  return hashKey(timeOrderedKey(exp! * 1000, `plugin:private-key-jwt:jti:ref-app:${jti}`));
}

const token = (value: string) =>
  postForm(`${server.url}/connect/token`, { grant_type: 'client_credentials', client_assertion_type: JWT_BEARER, client_assertion: value });

async function until(check: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return check();
}

describe('expired records, with cleanupInterval: 1', () => {
  it('are swept within seconds, reference tokens and used assertion ids alike, while live ones stay', async () => {
    const oldJti = randomUUID();
    const oldAssertion = await assertion(oldJti);
    const old = await token(oldAssertion);
    expect(old.status, JSON.stringify(old.body)).toBe(200);
    const oldKeys = [hashKey(old.body.access_token as string), jtiRowKey(oldAssertion, oldJti)];
    expect(rows().map((r) => r.key)).toEqual(expect.arrayContaining(oldKeys));

    // Ten minutes later: the token (60 s) and the jti record (exp + 60 s of skew) have expired.
    skipped += 10 * 60_000;
    const liveJti = randomUUID();
    const liveAssertion = await assertion(liveJti);
    const live = await token(liveAssertion);
    expect(live.status, JSON.stringify(live.body)).toBe(200);
    const liveKeys = [hashKey(live.body.access_token as string), jtiRowKey(liveAssertion, liveJti)];

    const swept = await until(() => !rows().some((r) => oldKeys.includes(r.key)), 5_000);
    expect(swept, 'the expired records are gone').toBe(true);
    expect(rows().map((r) => r.key).sort()).toEqual([...liveKeys].sort());

    // The swept jti does not reopen the door: the old assertion is refused as expired.
    const replay = await token(oldAssertion);
    expect(replay.status).toBe(401);
    expect(replay.body.error).toBe('invalid_client');
    const line = server.logs.find((l) => l.reqId === replay.headers.get('x-request-id') && l.msg === 'request rejected');
    expect(String(line?.detail)).toContain('expired at');
  });
});
