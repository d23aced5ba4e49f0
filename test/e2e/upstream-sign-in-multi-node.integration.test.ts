/**
 * Issue 34, "Two nodes on PostgreSQL: sign in through node A via the upstream, the callback
 * answered by node B". Two nodes of this service behind one issuer (as behind a load balancer)
 * share one PostgreSQL schema; the upstream is another instance of this service ("corp", its
 * own sign-in page). The browser starts at node A and is sent to corp; corp sends it back to
 * the issuer's `/connect/authorize/callback`, and the load balancer hands that request to node
 * B: B finds the pending upstream sign-in (our `state`, the PKCE verifier, the `nonce`) in the
 * store, not in A's memory, and completes it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserConfig } from '../../src/config/schema.js';
import { hashPassword } from '../../src/oauth/password-hash.js';
import { hashSecret } from '../../src/sdk/hash.js';
import { createTestSchema, postgresSkipReason, type TestSchema } from '../support/pg.js';
import { firstPartyPlugins, freePort, startServer, type TestServer } from '../support/server.js';
import { authorizeUrl, Browser, formsOf, redeemWeb, signInConfig, webRequest } from '../support/sign-in.js';
import { testKeyFiles } from '../support/test-keys.js';

const skip = await postgresSkipReason('upstream sign-in on two nodes');

const carol = { subjectId: 'corp-carol', username: 'carol', password: 'carol-password-1', claims: { name: 'Carol Corp', email: 'carol@corp.example' } };

describe.skipIf(skip)('upstream sign-in on two nodes sharing PostgreSQL', () => {
  let schema: TestSchema;
  let dir: string;
  let issuer: string;
  let a: TestServer | undefined;
  let b: TestServer | undefined;
  let corp: TestServer | undefined;

  beforeAll(async () => {
    schema = await createTestSchema('upstream_nodes');
    dir = mkdtempSync(join(tmpdir(), 'svc-upstream-nodes-'));
    const [portA, corpPort] = [await freePort(), await freePort()];
    // One issuer for both nodes: node A's address stands in for the load balancer's.
    issuer = `http://127.0.0.1:${portA}`;
    const config: UserConfig = {
      ...(await signInConfig({
        identityProviders: [{ type: 'oidc', name: 'corp', displayName: 'Corp', issuer: `http://127.0.0.1:${corpPort}`, clientId: 'our-service', clientSecret: 'our-secret-at-corp' }],
      })),
      store: schema.url, pluginDirs: [firstPartyPlugins], packagePlugins: [], signing: { keys: testKeyFiles(dir) }, issuer,
    };
    // One after the other: the first creates the tables.
    a = await startServer({ ...config, port: portA });
    b = await startServer(config);
    corp = await startServer({
      ...(await signInConfig({
        users: [{ ...carol, password: await hashPassword(carol.password, { ln: 4, r: 8, p: 1 }) }],
        clients: [{
          clientId: 'our-service', clientName: 'Our service', clientSecrets: [{ value: hashSecret('our-secret-at-corp') }],
          allowedGrantTypes: ['authorization_code'], allowedScopes: ['openid', 'profile', 'email'],
          redirectUris: [`${issuer}/connect/authorize/callback`],
        }],
      })),
      port: corpPort,
    });
  }, 60_000);
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close(), corp?.close()]);
    await schema?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('node B answers the upstream\'s callback of a sign-in node A started, and the user is in the shared store', async () => {
    // One jar per site: the issuer's (both nodes) and corp's.
    const atUs = new Browser(issuer);
    const atCorp = new Browser(corp!.url);
    const flow = webRequest();
    const ourPage = await atUs.get(authorizeUrl(a!, flow.params));
    const toCorp = await atUs.submit(ourPage, { provider: 'corp' }, formsOf(ourPage.html).findIndex((f) => f.fields.step === 'upstream'));
    expect(toCorp.location!.origin).toBe(corp!.url);
    const corpPage = await atCorp.get(toCorp.location!);
    const back = await atCorp.submit(corpPage, { username: carol.username, password: carol.password }, formsOf(corpPage.html).findIndex((f) => f.fields.step === 'sign-in'));
    expect(back.status).toBe(303);
    expect(`${back.location!.origin}${back.location!.pathname}`).toBe(`${issuer}/connect/authorize/callback`);

    // The load balancer sends the callback to node B.
    const toB = new URL(back.location!);
    toB.port = new URL(b!.url).port;
    expect(toB.origin).not.toBe(new URL(issuer).origin);
    const linesAtB = b!.logs.length;
    const atClient = await atUs.get(toB);
    const code = atClient.location?.searchParams.get('code');
    if (atClient.status !== 303 || !code) throw new Error(`expected the code at the client from node B, got ${atClient.status}:\n${atClient.html}`);
    expect(b!.logs.slice(linesAtB).some((l) => l.msg === 'user.signed_in')).toBe(true);

    // Redeemed at node A: the code node B issued is in the shared store.
    const tokens = await redeemWeb(a!, code, flow.verifier);
    expect(tokens.status).toBe(200);
    const claims = decodeJwt(tokens.body.id_token as string);
    expect(claims).toMatchObject({ iss: issuer, idp: 'corp', amr: ['external'], name: 'Carol Corp' });
    const user = await a!.app.store.users.getBySubject(claims.sub!);
    expect(user!.upstreamIdentities).toEqual([expect.objectContaining({ provider: 'corp', issuer: corp!.url, subject: carol.subjectId })]);
  });

  it('the same callback a second time is refused at node A: the pending sign-in was used up in the store', async () => {
    const atUs = new Browser(issuer);
    const atCorp = new Browser(corp!.url);
    const ourPage = await atUs.get(authorizeUrl(a!, webRequest().params));
    const toCorp = await atUs.submit(ourPage, { provider: 'corp' }, formsOf(ourPage.html).findIndex((f) => f.fields.step === 'upstream'));
    const corpPage = await atCorp.get(toCorp.location!);
    const back = await atCorp.submit(corpPage, { username: carol.username, password: carol.password }, formsOf(corpPage.html).findIndex((f) => f.fields.step === 'sign-in'));
    const toB = new URL(back.location!);
    toB.port = new URL(b!.url).port;
    expect((await atUs.get(toB)).location?.searchParams.get('code')).toBeTruthy();
    const replay = await atUs.get(back.location!);
    expect(replay.location?.searchParams.get('code') ?? null).toBeNull();
    expect(a!.logs.some((l) => l.msg === 'user.sign_in_failed' && (l.event as Record<string, unknown>).reason === 'invalid-answer')).toBe(true);
  });
});
