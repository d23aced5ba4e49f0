/**
 * A DPoP proof's `jti` is written to the store only for a request that earned it (issue 33,
 * item 4): a caller that fails client authentication, or is refused by the client back-off
 * (429), writes no `dpop_jti` record at the token or PAR endpoint, however good its self-made
 * proof; an authenticated client's proof is recorded once and its replay refused (RFC 9449 §11.1).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryStore } from '../../src/store/memory-store.js';
import type { Store } from '../../src/store/store.js';
import { basic, postForm, startServer, type TestServer } from '../support/server.js';
import { dpopKey, type DpopKey } from '../support/dpop.js';
import { signInConfig, webRequest } from '../support/sign-in.js';

/** A memory store that remembers the type of every record added, as a database would hold them. */
function watchedStore(): { store: Store; jtiRecords: () => number } {
  const inner = createMemoryStore();
  const types: string[] = [];
  const store: Store = {
    ...inner,
    add: async (grant) => {
      types.push(grant.type);
      return inner.add(grant);
    },
    commit: async (batch) => {
      for (const grant of batch.add ?? []) types.push(grant.type);
      return inner.commit(batch);
    },
  };
  return { store, jtiRecords: () => types.filter((t) => t === 'dpop_jti').length };
}

const web = basic('web', 'web-secret');
const wrongSecret = basic('web', 'not-the-secret');
const stranger = basic('nobody', 'anything');

describe('token and PAR requests', () => {
  let server: TestServer;
  let watched: ReturnType<typeof watchedStore>;
  let key: DpopKey;
  beforeAll(async () => {
    key = await dpopKey();
    watched = watchedStore();
    server = await startServer(await signInConfig(), { store: watched.store });
  });
  afterAll(() => server?.close());

  const tokenUrl = (): string => `${server.url}/connect/token`;
  const parUrl = (): string => `${server.url}/connect/par`;

  it('an unauthenticated token request with a valid proof is 401 invalid_client and writes no jti', async () => {
    for (const authorization of [wrongSecret, stranger]) {
      const res = await postForm(tokenUrl(), { grant_type: 'client_credentials' }, { authorization, DPoP: key.proof({ htu: tokenUrl() }) });
      expect(res.status).toBe(401);
      expect(res.body.error).toBe('invalid_client');
    }
    expect(watched.jtiRecords()).toBe(0);
  });

  it('an unauthenticated PAR request with a valid proof is 401 invalid_client and writes no jti', async () => {
    const res = await postForm(parUrl(), webRequest().params, { authorization: wrongSecret, DPoP: key.proof({ htu: parUrl() }) });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('invalid_client');
    expect(watched.jtiRecords()).toBe(0);
  });

  it('an authenticated PAR request records its proof once; the same proof again is refused as a replay', async () => {
    const proof = key.proof({ htu: parUrl() });
    const first = await postForm(parUrl(), webRequest().params, { authorization: web, DPoP: proof });
    expect(first.status).toBe(201);
    expect(watched.jtiRecords()).toBe(1);
    const replay = await postForm(parUrl(), webRequest().params, { authorization: web, DPoP: proof });
    expect(replay.status).toBe(400);
    expect(replay.body).toEqual({ error: 'invalid_dpop_proof', error_description: 'The DPoP proof is invalid.' });
  });

  it('a client that may not use the grant writes no jti; an authenticated client that may records it and gets its DPoP token', async () => {
    const before = watched.jtiRecords();
    const refused = await postForm(tokenUrl(), { grant_type: 'client_credentials' }, { authorization: web, DPoP: key.proof({ htu: tokenUrl() }) });
    expect(refused.body.error).toBe('unauthorized_client');
    expect(watched.jtiRecords()).toBe(before);
    const m2m = basic('m2m', 'm2m-secret');
    const proof = key.proof({ htu: tokenUrl() });
    const ok = await postForm(tokenUrl(), { grant_type: 'client_credentials', scope: 'api1.read' }, { authorization: m2m, DPoP: proof });
    expect(ok.status).toBe(200);
    expect(ok.body.token_type).toBe('DPoP');
    expect(watched.jtiRecords()).toBe(before + 1);
    const replay = await postForm(tokenUrl(), { grant_type: 'client_credentials', scope: 'api1.read' }, { authorization: m2m, DPoP: proof });
    expect(replay.status).toBe(400);
    expect(replay.body.error).toBe('invalid_dpop_proof');
  });
});

describe('a request the client back-off refuses', () => {
  let server: TestServer;
  let watched: ReturnType<typeof watchedStore>;
  let key: DpopKey;
  beforeAll(async () => {
    key = await dpopKey();
    watched = watchedStore();
    server = await startServer(await signInConfig({ authThrottle: { pairThreshold: 2, addressThreshold: 1000 } }), { store: watched.store });
  });
  afterAll(() => server?.close());

  it('is 429 with Retry-After and writes no jti, with the right secret too', async () => {
    const tokenUrl = `${server.url}/connect/token`;
    const attempt = (authorization: string) =>
      postForm(tokenUrl, { grant_type: 'client_credentials', scope: 'api1.read' }, { authorization, DPoP: key.proof({ htu: tokenUrl }) });
    const m2mWrong = basic('m2m', 'wrong');
    expect((await attempt(m2mWrong)).status).toBe(401);
    expect((await attempt(m2mWrong)).status).toBe(401);
    const throttled = await attempt(basic('m2m', 'm2m-secret'));
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(watched.jtiRecords()).toBe(0);
  });
});
