/**
 * The failed-authentication throttle over HTTP. Each test calls from its own loopback address
 * (Linux routes all of 127.0.0.0/8 to lo, so a client socket can bind 127.0.0.x), which is the
 * address the service sees: no X-Forwarded-For is trusted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserConfig } from '../../src/config/schema.js';
import { hashSecret } from '../../src/sdk/hash.js';
import { demoConfig } from '../support/demo-config.js';
import { postFrom as postFromAddress, type Reply } from '../support/raw-http.js';
import { basic, startServer, type TestServer } from '../support/server.js';
import { realClockWithSkips } from '../support/clocks.js';

const pairThreshold = 3;
const addressThreshold = 6;
const config: UserConfig = {
  ...demoConfig,
  clients: [
    ...demoConfig.clients!,
    {
      clientId: 'other',
      clientSecrets: [{ value: hashSecret('other-secret') }],
      allowedGrantTypes: ['client_credentials'],
      allowedScopes: ['api1.read'],
    },
  ],
  authThrottle: { pairThreshold, addressThreshold, maxDelay: 300, window: 900 },
};

let server: TestServer;
// The throttle reads the service's clock: a test moves it past a Retry-After instead of waiting.
const clock = realClockWithSkips();
beforeAll(async () => {
  server = await startServer(config, { clock });
});
afterAll(async () => {
  await server?.close();
});

/** POSTs a form from a chosen local address. */
const postFrom = (localAddress: string, path: string, form: Record<string, string>, authorization?: string): Promise<Reply> =>
  postFromAddress(`${server.url}${path}`, localAddress, form, authorization ? { authorization } : {});

const cc = { grant_type: 'client_credentials' };
const token = (from: string, authorization?: string, form: Record<string, string> = cc) => postFrom(from, '/connect/token', form, authorization);
const right = basic('m2m', 'm2m-secret');
const wrong = basic('m2m', 'not-the-secret');

function expectToken(reply: Reply): void {
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  expect(reply.body.access_token).toEqual(expect.any(String));
}

const apiDenied = "API resource authentication failed: introspection takes an API resource's name and secret, not a client's.";

function expectInvalidClient(reply: Reply, description = 'Client authentication failed.'): void {
  expect({ status: reply.status, body: reply.body }).toEqual({
    status: 401,
    body: { error: 'invalid_client', error_description: description },
  });
}

function expectThrottled(reply: Reply, retryAfter: number): void {
  expect({ status: reply.status, body: reply.body }).toEqual({
    status: 429,
    body: { error: 'temporarily_unavailable', error_description: `Too many failed authentications; retry after ${retryAfter} seconds.` },
  });
  expect(reply.headers['retry-after']).toBe(String(retryAfter));
  expect(reply.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(reply.headers['cache-control']).toBe('no-store');
  expect(reply.body).not.toHaveProperty('access_token');
}

describe('failed client authentication throttle', () => {
  it(`answers 429 temporarily_unavailable with Retry-After after ${pairThreshold} failures of one client from one address, even to the right secret`, async () => {
    const attacker = '127.0.0.2';
    for (let i = 0; i < pairThreshold; i++) expectInvalidClient(await token(attacker, wrong));
    expectThrottled(await token(attacker, right), 1);
    expectThrottled(await token(attacker, wrong), 1);
    // The same credentials in the body are the same (client, address) pair.
    expectThrottled(await token(attacker, undefined, { ...cc, client_id: 'm2m', client_secret: 'm2m-secret' }), 1);
  });

  it('does not lock the client out from another address', async () => {
    const attacker = '127.0.0.3';
    const realClient = '127.0.0.4';
    for (let i = 0; i < pairThreshold; i++) expectInvalidClient(await token(attacker, wrong));
    expectThrottled(await token(attacker, right), 1);
    expectToken(await token(realClient, right));
    expectToken(await token(realClient, right));
  });

  it('does not slow down another client from the same address', async () => {
    const shared = '127.0.0.5';
    for (let i = 0; i < pairThreshold; i++) expectInvalidClient(await token(shared, wrong));
    expectThrottled(await token(shared, right), 1);
    expectToken(await token(shared, basic('other', 'other-secret')));
  });

  it('lets the client in again once Retry-After has passed, and backs off longer after the next failure', async () => {
    const from = '127.0.0.6';
    for (let i = 0; i < pairThreshold; i++) expectInvalidClient(await token(from, wrong));
    expectThrottled(await token(from, right), 1);
    clock.advance(1.1);
    // One more failure after the wait: the back-off doubles.
    expectInvalidClient(await token(from, wrong));
    expectThrottled(await token(from, right), 2);
    clock.advance(2.1);
    expectToken(await token(from, right));
  });

  it('forgets the pair count after a success', async () => {
    const from = '127.0.0.7';
    for (let i = 0; i < pairThreshold - 1; i++) expectInvalidClient(await token(from, wrong));
    expectToken(await token(from, right));
    // Without the reset, the next failure would be the third and throttle the fourth request.
    for (let i = 0; i < pairThreshold - 1; i++) expectInvalidClient(await token(from, wrong));
    expectToken(await token(from, right));
  });

  it(`throttles an address after ${addressThreshold} failures spread over many client ids, and only that address`, async () => {
    const sprayer = '127.0.0.8';
    for (let i = 0; i < addressThreshold; i++) expectInvalidClient(await token(sprayer, basic(`guess-${i}`, 'whatever')));
    expectThrottled(await token(sprayer, right), 1);
    expectThrottled(await token(sprayer, basic('other', 'other-secret')), 1);
    expectToken(await token('127.0.0.9', right));
  });

  it('counts failures at every endpoint that authenticates a client, and throttles at each', async () => {
    const from = '127.0.0.11';
    expectInvalidClient(await postFrom(from, '/connect/revocation', { token: 'x' }, wrong));
    expectInvalidClient(await postFrom(from, '/connect/token', cc, wrong));
    expectInvalidClient(await postFrom(from, '/connect/revocation', { token: 'x' }, wrong));
    expectThrottled(await postFrom(from, '/connect/revocation', { token: 'x' }, right), 1);
    expectThrottled(await postFrom(from, '/connect/token', cc, right), 1);
  });

  it('throttles an API resource failing at introspection the same way', async () => {
    const from = '127.0.0.12';
    const api = (secret: string) => postFrom(from, '/connect/introspect', { token: 'x' }, basic('api1', secret));
    for (let i = 0; i < pairThreshold; i++) expectInvalidClient(await api('wrong'), apiDenied);
    expectThrottled(await api('api1-secret'), 1);
    const elsewhere = await postFrom('127.0.0.13', '/connect/introspect', { token: 'x' }, basic('api1', 'api1-secret'));
    expect({ status: elsewhere.status, body: elsewhere.body }).toEqual({ status: 200, body: { active: false } });
  });

  it('logs a throttled request without the secret it carried', async () => {
    const lines = server.logs.filter((l) => l.error === 'temporarily_unavailable');
    expect(lines.length).toBeGreaterThan(0);
    expect(lines[0]).toMatchObject({ msg: 'request rejected', status: 429, detail: 'authentication throttled' });
    expect(server.logText()).not.toContain('m2m-secret');
    expect(server.logText()).not.toContain('not-the-secret');
  });
});
