/**
 * The sign-in flow on PostgreSQL with two nodes sharing one schema and one issuer: the
 * authorization request opens on node A, the sign-in form is posted to node B, the code is
 * redeemed on node B and replayed on node A (which revokes the first redemption's tokens), and
 * the session signed in on B is seen by A (prompt=none). Nothing of the flow lives in a node's
 * memory.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestSchema, postgresSkipReason, type TestSchema } from '../support/pg.js';
import { freePort, postForm, startServer, type TestServer } from '../support/server.js';
import { alice, authorizeUrl, Browser, formsOf, signInConfig, webRedirect, webRequest } from '../support/sign-in.js';

const skip = await postgresSkipReason('sign-in on two PostgreSQL nodes');

describe.skipIf(skip)('sign-in across two nodes on PostgreSQL', () => {
  let schema: TestSchema;
  let a: TestServer;
  let b: TestServer;

  beforeAll(async () => {
    schema = await createTestSchema('sign_in_two_nodes');
    const portA = await freePort();
    const issuer = `http://127.0.0.1:${portA}`;
    const config = await signInConfig({ store: schema.url, issuer });
    a = await startServer({ ...config, port: portA });
    b = await startServer(config);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await schema?.drop();
  });

  const web = `Basic ${Buffer.from('web:web-secret').toString('base64')}`;
  const redeem = (node: TestServer, code: string, verifier: string) =>
    postForm(`${node.url}/connect/token`, { grant_type: 'authorization_code', code, redirect_uri: webRedirect, code_verifier: verifier }, { authorization: web });

  it('sign in through node A and B, redeem on B, replay on A revokes; the session is shared', async () => {
    const { params, verifier } = webRequest({ scope: 'openid offline_access' });
    const browser = new Browser(a.url);
    const page = await browser.get(authorizeUrl(a, params));
    expect(page.html).toContain('<h1>Sign in</h1>');
    const form = formsOf(page.html)[0]!;
    const done = await browser.post(`${b.url}${form.action}`, { ...form.fields, username: alice.username, password: alice.password });
    expect(done.status).toBe(303);
    expect(done.location!.searchParams.get('iss')).toBe(a.url);
    const code = done.location!.searchParams.get('code')!;

    const first = await redeem(b, code, verifier);
    expect(first.status).toBe(200);
    const replay = await redeem(a, code, verifier);
    expect(replay).toMatchObject({ status: 400, body: { error: 'invalid_grant', error_description: 'The authorization code is invalid or expired.' } });
    const refresh = await postForm(`${b.url}/connect/token`, { grant_type: 'refresh_token', refresh_token: first.body.refresh_token as string }, { authorization: web });
    expect(refresh.body.error).toBe('invalid_grant');

    // The session signed in on B answers prompt=none on A.
    const silent = await browser.get(authorizeUrl(a, webRequest({ prompt: 'none' }).params));
    expect(silent.status).toBe(303);
    expect(silent.location!.searchParams.has('code')).toBe(true);
  });

  it('two nodes redeeming one code at once: exactly one gets tokens', async () => {
    const { params, verifier } = webRequest();
    const browser = new Browser(a.url);
    const page = await browser.get(authorizeUrl(a, params));
    const done = await browser.submit(page, { username: alice.username, password: alice.password });
    const code = done.location!.searchParams.get('code')!;
    const answers = await Promise.all([redeem(a, code, verifier), redeem(b, code, verifier)]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 400]);
  });
});
