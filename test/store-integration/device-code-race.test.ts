/**
 * Two nodes sharing one PostgreSQL database race on one approved device code (issue 14, point
 * 9c): exactly one poll gets the tokens and the other hears `invalid_grant`, never
 * `slow_down`; the winner's tokens stay good.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret } from '../../src/sdk/hash.js';
import { createTestSchema, postgresSkipReason, type TestSchema } from '../support/pg.js';
import { basic, postForm, startServer, type TestServer } from '../support/server.js';
import { codesFor, decideOverHttp, deviceClients, deviceConfig, alice, poll } from '../device/helpers.js';

const skip = await postgresSkipReason('device code race tests');

describe.skipIf(skip)('two nodes polling one approved device code', () => {
  let schema: TestSchema;
  let a: TestServer;
  let b: TestServer;

  beforeAll(async () => {
    schema = await createTestSchema('device_race');
    const tv = { ...deviceClients[0]!, accessTokenType: 'reference' as const };
    const config = await deviceConfig({
      store: schema.url,
      clients: [tv, ...deviceClients.slice(1)],
      apiResources: [{ name: 'api1', scopes: ['api1.read', 'api1.write'], secrets: [{ value: hashSecret('api1-secret') }] }],
    });
    [a, b] = await Promise.all([startServer(config), startServer(config)]);
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await schema?.drop();
  });

  it('gives the tokens to one poll and invalid_grant to the other', async () => {
    for (let round = 0; round < 8; round++) {
      const codes = await codesFor(a, { client_id: 'tv', scope: 'api1.read offline_access' });
      await decideOverHttp(a.url, codes.verification_uri_complete, alice, 'approve');

      const results = await Promise.all([poll(a, codes.device_code), poll(b, codes.device_code)]);

      const won = results.filter((r) => r.status === 200);
      expect(won, JSON.stringify(results.map((r) => r.body))).toHaveLength(1);
      expect(results.filter((r) => r.status !== 200).map((r) => ({ status: r.status, body: r.body }))).toEqual([
        { status: 400, body: { error: 'invalid_grant', error_description: 'The device code has already been used.' } },
      ]);
      const introspected = await postForm(`${b.url}/connect/introspect`, { token: won[0]!.body.access_token as string }, { authorization: basic('api1', 'api1-secret') });
      expect(introspected.body.active).toBe(true);
    }
  });
});
