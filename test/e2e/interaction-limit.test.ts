/**
 * Anonymous GETs of the authorization endpoint may not fill the store (issue 33, item 4): each
 * one that needs a sign-in page starts an interaction, a record kept 15 minutes, so starts are
 * limited per client address and in all (`interactionLimit`). Past a limit a person gets the
 * message page with 429 and `Retry-After`, never a redirect to the request's unverified
 * redirect URI, and nothing is written. The limit counts where the other limits do: with
 * shared counters, two nodes allow it once between them.
 */
import { request } from 'node:http';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserConfig } from '../../src/config/schema.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import type { Store } from '../../src/store/store.js';
import { createStore } from '../../src/store/create-store.js';
import { manualClock } from '../device/helpers.js';
import { startServer, type TestServer } from '../support/server.js';
import { Browser, authorizeUrl, signInAndAuthorize, signInConfig, webRequest } from '../support/sign-in.js';
import { redisSkipReason, redisUrl } from '../support/redis.js';
import { createTestSchema, postgresSkipReason, type TestSchema } from '../support/pg.js';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  html: string;
}

/** GET from a chosen local address: Linux routes all of 127.0.0.0/8 to lo, and that address is what the service sees. */
function getFrom(url: string, localAddress: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { localAddress, agent: false, headers }, (res) => {
      let html = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (html += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, html }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A memory store that counts the interactions written. */
function watchedStore(): { store: Store; interactions: () => number } {
  const inner = createMemoryStore();
  let written = 0;
  return {
    store: { ...inner, add: async (g) => { if (g.type === 'authorization_interaction') written += 1; return inner.add(g); } },
    interactions: () => written,
  };
}

const anonymous = (server: TestServer, from: string, headers: Record<string, string> = {}) =>
  getFrom(authorizeUrl(server, { ...webRequest().params, state: 's'.repeat(2000) }), from, headers);

describe('one node', () => {
  const clock = manualClock(Date.parse('2030-01-01T00:00:00Z'));
  const watched = watchedStore();
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer(await signInConfig({ interactionLimit: { maxPerAddress: 5, maxTotal: 8, window: 60 } }), { clock, store: watched.store });
  });
  afterAll(() => server?.close());

  it('a flood from one address gets the 429 page after the limit, and the store holds only the limit of interactions', async () => {
    const answers = [];
    for (let i = 0; i < 20; i++) answers.push(await anonymous(server, '127.0.0.11'));
    expect(answers.map((a) => a.status)).toEqual([...Array(5).fill(200), ...Array(15).fill(429)]);
    const refused = answers.at(-1)!;
    expect(refused.headers['retry-after']).toBe('60');
    expect(refused.headers.location).toBeUndefined();
    expect(refused.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(refused.html).toContain('Too many sign-ins started');
    expect(refused.html).not.toContain('web.example.com');
    expect(watched.interactions()).toBe(5);
  });

  it('the page is in the reader\'s language', async () => {
    const refused = await anonymous(server, '127.0.0.11', { 'accept-language': 'de' });
    expect(refused.status).toBe(429);
    expect(refused.html).toContain('Zu viele Anmeldungen begonnen');
  });

  it('the limit in all holds for many addresses together', async () => {
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await anonymous(server, `127.0.0.${20 + i}`)).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429, 429]);
    expect(watched.interactions()).toBe(8);
  });

  it('a browser signed in before gets its code while the limits refuse new interactions; after the window a new sign-in works', async () => {
    const browser = new Browser(server.url);
    // Nothing to start for a browser with a session: the limits do not apply to it.
    clock.advance(60);
    const first = await signInAndAuthorize(server, browser, webRequest().params);
    expect(first.searchParams.get('code')).toBeTruthy();
    for (let i = 0; i < 8; i++) await anonymous(server, `127.0.0.${40 + i}`);
    expect((await anonymous(server, '127.0.0.60')).status).toBe(429);
    const again = await browser.get(authorizeUrl(server, webRequest().params));
    expect(again.status).toBe(303);
    expect(again.location?.searchParams.get('code')).toBeTruthy();
    clock.advance(60);
    const other = new Browser(server.url);
    expect((await signInAndAuthorize(server, other, webRequest().params)).searchParams.get('code')).toBeTruthy();
  });
});

/** Two nodes, each with its own store, counting in one shared counter store. */
function sharedByTwoNodes(config: () => Promise<UserConfig>) {
  const stores = [watchedStore(), watchedStore()];
  let nodes: TestServer[] = [];
  beforeAll(async () => {
    const c = await config();
    nodes = [await startServer(c, { store: stores[0]!.store }), await startServer(c, { store: stores[1]!.store })];
  });
  afterAll(async () => {
    for (const node of nodes) await node.close();
  });

  it('allow the per-address limit once between them', async () => {
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await anonymous(nodes[i % 2]!, '127.0.0.71')).status);
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
    expect(stores[0]!.interactions() + stores[1]!.interactions()).toBe(4);
  });
}

const limit = { interactionLimit: { maxPerAddress: 4, maxTotal: 100, window: 60 } };
const prefix = (): string => `svc-test:${randomBytes(6).toString('hex')}:`;

const redisSkip = await redisSkipReason('the shared interaction-limit tests');
describe.skipIf(redisSkip)('two nodes with counters in Redis', () => {
  sharedByTwoNodes(async () => signInConfig({ ...limit, counters: redisUrl, counterKeyPrefix: prefix() }));
});

const pgSkip = await postgresSkipReason('the shared interaction-limit tests');
describe.skipIf(pgSkip)('two nodes with counters in PostgreSQL', () => {
  let schema: TestSchema | undefined;
  afterAll(() => schema?.drop());
  sharedByTwoNodes(async () => {
    schema = await createTestSchema('interaction_limit');
    // The nodes' stores stay in memory (to count what they write); the counters use the schema's database, migrated here.
    const migrated = await createStore(schema.url, process.cwd());
    await migrated.migrate();
    await migrated.close();
    // Nodes that share counters but not a store must share the root secret the counter keys are
    // digested under (SECURITY.md); nodes on the one PostgreSQL store share the stored one.
    return signInConfig({ ...limit, store: schema.url, counters: 'store', deviceFlow: { cookieSecret: 'the two nodes share this page secret' } });
  });
});
