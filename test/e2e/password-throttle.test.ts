/**
 * Failed password-grant sign-ins are throttled with the client throttle's back-off: per
 * (username, address), per username from all addresses, and per address across usernames.
 * Counters are keyed by the username sent, so an unknown username is answered exactly like a
 * known one and the throttle tells nobody which usernames exist.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alice, auth, baseConfig, bob, manualClock } from '../fixtures/grant-plugins/world.js';
import { postFrom, type Reply } from '../support/raw-http.js';
import { startServer, type TestServer } from '../support/server.js';

const clock = manualClock();
let server: TestServer;
beforeAll(async () => {
  server = await startServer(
    { ...baseConfig, passwordThrottle: { pairThreshold: 3, userThreshold: 5, addressThreshold: 8, maxDelay: 300, window: 900 } },
    { clock },
  );
});
afterAll(() => server.close());

const signIn = (from: string, username: string, password: string): Promise<Reply> =>
  postFrom(`${server.url}/connect/token`, from, { grant_type: 'password', username, password, scope: 'api1.read' }, auth('web'));

/** What the caller sees: status, Retry-After and body. */
const seen = (r: Reply) => ({ status: r.status, retryAfter: r.headers['retry-after'], body: r.body });
const wrong = { status: 400, retryAfter: undefined, body: { error: 'invalid_grant', error_description: 'The username or password is incorrect.' } };
const throttled = (seconds: number) => ({
  status: 429,
  retryAfter: String(seconds),
  body: { error: 'temporarily_unavailable', error_description: `Too many failed sign-ins; retry after ${seconds} seconds.` },
});

async function guesses(from: string, username: string, count: number): Promise<Array<ReturnType<typeof seen>>> {
  const out = [];
  for (let i = 0; i < count; i++) out.push(seen(await signIn(from, username, `guess-${i}`)));
  return out;
}

describe('password guessing', () => {
  it('throttles guesses for one user from one address, and answers an unknown username the same', async () => {
    const forAlice = await guesses('127.0.0.2', 'alice', 3);
    expect(forAlice).toEqual([wrong, wrong, wrong]);
    // Throttled even with the right password: the guesser cannot test it.
    expect(seen(await signIn('127.0.0.2', 'alice', alice.password))).toEqual(throttled(1));

    const forNobody = await guesses('127.0.0.2', 'nobody', 3);
    expect(forNobody).toEqual(forAlice);
    expect(seen(await signIn('127.0.0.2', 'nobody', alice.password))).toEqual(throttled(1));
  });

  it('backs off exponentially while the guessing goes on', async () => {
    clock.advance(1);
    expect(seen(await signIn('127.0.0.2', 'alice', 'guess-again'))).toEqual(wrong);
    expect(seen(await signIn('127.0.0.2', 'alice', 'guess-again'))).toEqual(throttled(2));
  });

  it('leaves the real user, signing in from their own address, alone', async () => {
    const res = await signIn('127.0.0.3', 'alice', alice.password);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  });

  it('throttles one user guessed at from many addresses, known or not', async () => {
    for (const username of ['bob', 'nobody-else']) {
      const answers = [];
      for (let i = 0; i < 5; i++) answers.push(seen(await signIn(`127.0.1.${i + 1}`, username, 'guess')));
      expect(answers).toEqual([wrong, wrong, wrong, wrong, wrong]);
      expect(seen(await signIn('127.0.1.9', username, bob.password))).toEqual(throttled(1));
    }
  });

  it('throttles one address spraying many usernames', async () => {
    const answers = [];
    for (let i = 0; i < 8; i++) answers.push(seen(await signIn('127.0.2.1', `user-${i}`, 'guess')));
    expect(answers).toEqual(Array(8).fill(wrong));
    expect(seen(await signIn('127.0.2.1', 'alice', alice.password))).toEqual(throttled(1));
  });

  it('forgets a user’s failures once they sign in', async () => {
    clock.advance(900);
    expect(await guesses('127.0.3.1', 'alice', 2)).toEqual([wrong, wrong]);
    expect((await signIn('127.0.3.1', 'alice', alice.password)).status).toBe(200);
    expect(await guesses('127.0.3.1', 'alice', 2)).toEqual([wrong, wrong]);
  });
});
