/**
 * `signing.threads`: the service signs access tokens and ID tokens on worker threads. What a
 * client gets is the same as from the event loop: RS256 access tokens that verify against the
 * published JWKS, each request its own token, an ID token whose `at_hash` is its access token's;
 * and a graceful stop answers the requests in flight before the threads go.
 */
import { availableParallelism } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { createHash } from 'node:crypto';
import { checkConfig } from '../../src/config/load.js';
import { postForm, repoRoot, startServer, type TestServer } from '../support/server.js';
import { Browser, redeemWeb, signInAndAuthorize, signInConfig, webRequest } from '../support/sign-in.js';

const m2m = { authorization: `Basic ${Buffer.from('m2m:m2m-secret').toString('base64')}` };

let server: TestServer;
let jwks: ReturnType<typeof createLocalJWKSet>;
beforeAll(async () => {
  server = await startServer(await signInConfig({ signing: { accessTokenAlgorithm: 'RS256', threads: 2 } }));
  jwks = createLocalJWKSet((await (await fetch(`${server.url}/.well-known/openid-configuration/jwks`)).json()) as JSONWebKeySet);
});
afterAll(() => server?.close());

describe('signing on threads', () => {
  it('issues RS256 access tokens that verify against the JWKS, a distinct one for each of many concurrent requests', async () => {
    const answers = await Promise.all(
      Array.from({ length: 40 }, () => postForm(`${server.url}/connect/token`, { grant_type: 'client_credentials', scope: 'api1.read' }, m2m)),
    );
    const tokens = answers.map(({ status, body }) => {
      expect(status).toBe(200);
      expect(body).toMatchObject({ token_type: 'Bearer', expires_in: expect.any(Number), scope: 'api1.read' });
      return body.access_token as string;
    });
    expect(new Set(tokens).size).toBe(40);
    const jtis = new Set<unknown>();
    for (const token of tokens) {
      const { payload, protectedHeader } = await jwtVerify(token, jwks, { issuer: server.url, audience: 'api1', typ: 'at+jwt', algorithms: ['RS256'] });
      expect(protectedHeader.alg).toBe('RS256');
      expect(payload).toMatchObject({ client_id: 'm2m', sub: 'm2m', scope: 'api1.read' });
      jtis.add(payload.jti);
    }
    expect(jtis.size).toBe(40);
  });

  it('signs the ID token of a code redemption too, with at_hash of its own access token', async () => {
    const { params, verifier } = webRequest({ scope: 'openid profile api1.read' });
    const location = await signInAndAuthorize(server, new Browser(server.url), params);
    const { status, body } = await redeemWeb(server, location.searchParams.get('code')!, verifier);
    expect(status).toBe(200);
    const accessToken = body.access_token as string;
    const { payload } = await jwtVerify(body.id_token as string, jwks, { issuer: server.url, audience: 'web', algorithms: ['RS256'] });
    const hash = createHash('sha256').update(accessToken).digest().subarray(0, 16).toString('base64url');
    expect(payload).toMatchObject({ sub: 'sub-alice', name: 'Alice Smith', at_hash: hash });
    await expect(jwtVerify(accessToken, jwks, { typ: 'at+jwt' })).resolves.toBeDefined();
  });

  it('answers the requests in flight when it is stopped, then stops its threads', async () => {
    const own = await startServer(await signInConfig({ signing: { accessTokenAlgorithm: 'RS256', threads: 1 } }));
    const requests = Array.from({ length: 40 }, () => postForm(`${own.url}/connect/token`, { grant_type: 'client_credentials' }, m2m));
    const inFlight = Promise.allSettled(requests);
    // Stop as the first answer arrives: the thread is still signing for the others.
    await Promise.race(requests);
    await own.close();
    const answers = await inFlight;
    // A connection the stop reached before its request was read is closed (as without threads);
    // no request hangs, and every one that was read gets its token, not an error.
    for (const a of answers) {
      if (a.status === 'fulfilled') expect(a.value.status).toBe(200);
      else expect(String((a.reason as Error).cause)).toMatch(/ECONNRESET|ECONNREFUSED|other side closed|SocketError/);
    }
    expect(answers.filter((a) => a.status === 'fulfilled').length).toBeGreaterThan(1);
    expect(own.logText()).not.toMatch(/signing thread (stopped|failed)|"level":50/);
  });

  it('"auto" is one thread per core', () => {
    const resolved = checkConfig({ store: 'memory', signing: { threads: 'auto' } }, repoRoot);
    expect(resolved.signing.threads).toBe(availableParallelism());
    expect(checkConfig({ store: 'memory' }, repoRoot).signing.threads).toBe(0);
  });
});
