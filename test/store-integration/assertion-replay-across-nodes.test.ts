/**
 * A private_key_jwt assertion is single-use across every node: two service instances share one
 * PostgreSQL schema, and whichever node sees a jti first is the only one that accepts it, even
 * when the same assertion reaches both at once.
 */
import { randomUUID } from 'node:crypto';
import { SignJWT, decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { timeOrderedKey } from '../../src/sdk/store-keys.js';
import { hashKey } from '../../src/store/hash-key.js';
import { createTestSchema, postgresSkipReason, type TestSchema } from '../support/pg.js';
import { postForm, startServer, type TestServer } from '../support/server.js';
import { makeKey, publicJwk, type TestKey } from '../plugins/private-key-jwt/helpers.js';

const skip = await postgresSkipReason('private_key_jwt replay tests');
const issuer = 'https://svc.assertion-replay.test';
const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

describe.skipIf(skip)('assertion replay across two nodes on one PostgreSQL database', () => {
  let schema: TestSchema;
  let key: TestKey;
  let a: TestServer;
  let b: TestServer;

  beforeAll(async () => {
    schema = await createTestSchema('assertion_replay');
    key = await makeKey('P-256');
    const config = {
      issuer,
      store: schema.url,
      apiScopes: [{ name: 'api1.read' }],
      apiResources: [{ name: 'api1', scopes: ['api1.read'] }],
      clients: [
        {
          clientId: 'signer',
          clientSecrets: [{ type: 'JsonWebKey', value: JSON.stringify(publicJwk(key)) }],
          allowedGrantTypes: ['client_credentials'],
          allowedScopes: ['api1.read'],
        },
      ],
    };
    [a, b] = await Promise.all([startServer(config), startServer(config)]);
  });

  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await schema?.drop();
  });

  async function assertion(jti: string = randomUUID()): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ jti })
      .setProtectedHeader({ alg: 'ES256' })
      .setIssuer('signer')
      .setSubject('signer')
      .setAudience(issuer)
      .setIssuedAt(now)
      .setExpirationTime(now + 120)
      .sign(key.privateKey);
  }

  const token = (node: TestServer, value: string) =>
    postForm(`${node.url}/connect/token`, { grant_type: 'client_credentials', client_assertion_type: JWT_BEARER, client_assertion: value });

  const replayLogged = (node: TestServer, reply: Awaited<ReturnType<typeof token>>) =>
    node.logs.some((l) => l.reqId === reply.headers.get('x-request-id') && String(l.detail).includes('was already used (replay)'));

  it('rejects on node B an assertion node A accepted, and the other way round', async () => {
    const first = await assertion();
    expect((await token(a, first)).status).toBe(200);
    const replay = await token(b, first);
    expect({ status: replay.status, body: replay.body }).toEqual({
      status: 401,
      body: { error: 'invalid_client', error_description: 'Client authentication failed.' },
    });
    expect(replayLogged(b, replay)).toBe(true);

    const second = await assertion();
    expect((await token(b, second)).status).toBe(200);
    const back = await token(a, second);
    expect(back.status).toBe(401);
    expect(replayLogged(a, back)).toBe(true);
  });

  it('accepts one assertion exactly once when it reaches both nodes at the same moment', async () => {
    const value = await assertion();
    const replies = await Promise.all(Array.from({ length: 16 }, (_, i) => token(i % 2 ? a : b, value)));
    expect(replies.map((r) => r.status).sort()).toEqual([200, ...Array<number>(15).fill(401)]);
    expect(replies.filter((r) => r.status === 401).every((r) => r.body.error === 'invalid_client')).toBe(true);
  });

  it('keeps the used jti in the shared table under its hash only, until the assertion has expired', async () => {
    const jti = `audit-${randomUUID()}`;
    const before = Date.now();
    const signed = await assertion(jti);
    expect((await token(a, signed)).status).toBe(200);
    const rows = await schema.query<{ key: string; type: string; client_id: string; expires_at: string }>(
      "select key, type, client_id, expires_at from persisted_grants where type = 'assertion_jti'",
    );
    expect(JSON.stringify(rows)).not.toContain(jti);
    // The assertion's exp in front of the hash (timeOrderedKey): it tells no more than expires_at.
    const exp = decodeJwt(signed).exp!;
    const row = rows.find((r) => r.key === hashKey(timeOrderedKey(exp * 1000, `plugin:private-key-jwt:jti:signer:${jti}`)));
    expect(row).toMatchObject({ type: 'assertion_jti', client_id: 'signer' });
    expect(row!.key.slice(0, 12)).toBe((exp * 1000).toString(16).padStart(12, '0'));
    // exp (120 s) plus the default clock skew (60 s): not sooner, so a replay stays refused while exp is valid.
    expect(Number(row!.expires_at)).toBeGreaterThanOrEqual(before + 179_000);
  });
});
