/**
 * Two token requests race on one authorization code: both pass the grant's checks before either
 * commits, so only the store's atomic consume decides. Exactly one gets tokens, and exactly one
 * `code.redeemed` event is raised: the loser redeemed nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryStore } from '../../src/store/memory-store.js';
import type { Store } from '../../src/store/store.js';
import { startServer, type TestServer } from '../support/server.js';
import { Browser, redeemWeb, signInAndAuthorize, signInConfig, webRequest } from '../support/sign-in.js';

/** A store whose commits that spend a grant wait until `parties` of them are pending, then all go on. */
function commitBarrier(store: Store, parties: number): Store {
  let waiting: Array<() => void> = [];
  return new Proxy(store, {
    get(target, name, receiver) {
      if (name !== 'commit') return Reflect.get(target, name, receiver) as unknown;
      return async (batch: Parameters<Store['commit']>[0]) => {
        if (batch.consume) {
          await new Promise<void>((resolve) => {
            waiting.push(resolve);
            if (waiting.length >= parties) {
              for (const go of waiting) go();
              waiting = [];
            }
          });
        }
        return target.commit(batch);
      };
    },
  });
}

let server: TestServer;
beforeAll(async () => {
  server = await startServer(await signInConfig(), { store: commitBarrier(createMemoryStore(), 2) });
});
afterAll(() => server.close());

const redeemedEvents = (): number => server.logs.filter((l) => (l.event as { type?: string } | undefined)?.type === 'code.redeemed').length;

describe('two concurrent redemptions of one code', () => {
  it('give tokens to one, invalid_grant to the other, and raise code.redeemed exactly once', async () => {
    const { params, verifier } = webRequest({ scope: 'openid' });
    const location = await signInAndAuthorize(server, new Browser(server.url), params);
    const code = location.searchParams.get('code')!;
    const before = redeemedEvents();

    const results = await Promise.all([redeemWeb(server, code, verifier), redeemWeb(server, code, verifier)]);

    expect(results.map((r) => r.status).sort()).toEqual([200, 400]);
    expect(results.find((r) => r.status === 400)!.body).toEqual({ error: 'invalid_grant', error_description: 'The authorization code is invalid or expired.' });
    expect(redeemedEvents() - before).toBe(1);
  });
});
