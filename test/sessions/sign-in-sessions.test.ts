import { describe, expect, it } from 'vitest';
import { createSignInSessions, maxFamilies, pruneEvery, sessionClientType, sessionCodeType } from '../../src/sessions/sign-in-sessions.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import type { ContractState } from '../../src/store/watched-contracts.js';

/** Before `svc migrate contract`: nodes of the previous release may share the database. */
const notContracted: ContractState = { recorded: () => false };

describe.each([
  ['contracted: each code a row of its own', undefined],
  ['before the contract: codes listed in the session record too', notContracted],
] as const)('sign-in sessions, %s', (_mode, contracts) => {
  // Never prunes unless a test says so.
  const setup = (random: () => number = () => 0.99) => {
    const store = createMemoryStore();
    let now = Date.now();
    // Each code a millisecond after the last: "newest" is well defined.
    const clock = { now: () => ++now };
    return { store, sessions: createSignInSessions({ store, clock, lifetimeSeconds: 3600, random, ...(contracts ? { contracts } : {}) }) };
  };

  it('records every code issued at once in one browser (many tabs), none lost and none refused', async () => {
    const { sessions } = setup();
    await sessions.start('browser-1', 'alice');
    const families = Array.from({ length: 64 }, (_, i) => `family-${i}`);
    await Promise.all(families.map((family, i) => sessions.codeIssued('browser-1', i % 2 ? 'web' : 'spa', family)));
    const session = await sessions.get('browser-1');
    expect((await sessions.families('browser-1')).sort()).toEqual([...families].sort());
    expect([...(session?.clients ?? [])].sort()).toEqual(['spa', 'web']);
  });

  it('keeps sessions of different browsers apart while they are written at once', async () => {
    const { sessions } = setup();
    await sessions.start('browser-1', 'alice');
    await sessions.start('browser-2', 'bob');
    await Promise.all([
      sessions.codeIssued('browser-1', 'web', 'a1'),
      sessions.codeIssued('browser-2', 'web', 'b1'),
      sessions.codeIssued('browser-1', 'web', 'a2'),
    ]);
    expect((await sessions.families('browser-1')).sort()).toEqual(['a1', 'a2']);
    expect(await sessions.families('browser-2')).toEqual(['b1']);
  });

  it('writes one record per client of a session, whatever the codes, found by client, and gone when the session ends', async () => {
    const { store, sessions } = setup();
    await sessions.start('browser-1', 'alice');
    await sessions.start('browser-2', 'bob');
    await Promise.all([1, 2, 3].map((i) => sessions.codeIssued('browser-1', 'web', `a${i}`)));
    await sessions.codeIssued('browser-1', 'spa', 'a4');
    await sessions.codeIssued('browser-2', 'web', 'b1');
    const ofClient = async (clientId: string) => (await store.listGrants({ type: sessionClientType, clientId }, { now: Date.now(), limit: 10 })).map((g) => g.subjectId).sort();
    expect(await ofClient('web')).toEqual(['alice', 'bob']);
    expect(await ofClient('spa')).toEqual(['alice']);
    await sessions.signOut('browser-1');
    await sessions.end('browser-2');
    expect(await ofClient('web')).toEqual([]);
    expect(await ofClient('spa')).toEqual([]);
  });

  it(`keeps every code's family, and at most the newest ${maxFamilies} in the session record`, async () => {
    const { sessions } = setup();
    await sessions.start('browser-1', 'alice');
    for (let i = 0; i < maxFamilies + 3; i++) await sessions.codeIssued('browser-1', 'web', `f${i}`);
    const listed = (await sessions.get('browser-1'))?.families ?? [];
    if (contracts) {
      expect(listed).toHaveLength(maxFamilies);
      expect(listed[0]).toBe('f3');
    } else {
      expect(listed, 'the record is not rewritten per code').toEqual([]);
    }
    expect(await sessions.families('browser-1')).toHaveLength(maxFamilies + 3);
  });

  it(`keeps the newest ${maxFamilies} code rows once a code prunes (one in ${pruneEvery} at random)`, async () => {
    let draws = 0;
    // Prunes at the last code only.
    const { store, sessions } = setup(() => (++draws === maxFamilies + 40 ? 0 : 0.99));
    await sessions.start('browser-1', 'alice');
    for (let i = 0; i < maxFamilies + 40; i++) await sessions.codeIssued('browser-1', 'web', `f${i}`);
    const rows = await store.findAll({ type: sessionCodeType, subjectId: 'alice' }, Date.now());
    expect(rows).toHaveLength(maxFamilies);
    const kept = rows.map((r) => (JSON.parse(r.data) as { family: string }).family);
    expect(kept).toContain(`f${maxFamilies + 39}`);
    expect(kept).toContain('f40');
    expect(kept).not.toContain('f39');
  });

  it('writes one row per code, and the session record only at a client\'s first code once contracted', async () => {
    const { store, sessions } = setup();
    await sessions.start('browser-1', 'alice');
    await sessions.codeIssued('browser-1', 'web', 'f1');
    const afterFirst = (await store.get('session:browser-1'))?.data;
    await sessions.codeIssued('browser-1', 'web', 'f2');
    const afterSecond = (await store.get('session:browser-1'))?.data;
    if (contracts) expect(afterSecond).not.toBe(afterFirst);
    else expect(afterSecond, 'a second code for the same client leaves the record as it was').toBe(afterFirst);
    const rows = await store.findAll({ type: sessionCodeType, subjectId: 'alice' }, Date.now());
    expect(rows.map((r) => JSON.parse(r.data) as unknown).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))).toEqual([{ family: 'f1' }, { family: 'f2' }]);
    await sessions.end('browser-1');
    expect(await store.findAll({ type: sessionCodeType, subjectId: 'alice' }, Date.now()), 'gone with the session').toEqual([]);
  });

  it('signing out revokes what every code yielded, and a sign-in again by the same person carries the families over', async () => {
    const { store, sessions } = setup();
    const family = async (id: string) => store.add({
      key: `refresh-${id}`, type: 'refresh_token', clientId: 'web', subjectId: 'alice', sessionId: id,
      createdAt: Date.now(), expiresAt: Date.now() + 60_000, consumedAt: undefined, data: '{}',
    });
    await sessions.start('browser-1', 'alice');
    await sessions.codeIssued('browser-1', 'web', 'f1');
    await family('f1');
    const previous = await sessions.get('browser-1');
    await sessions.start('browser-2', 'alice', { browserId: 'browser-1', session: previous! });
    await sessions.end('browser-1');
    await sessions.codeIssued('browser-2', 'web', 'f2');
    await family('f2');
    expect(await sessions.families('browser-2')).toEqual(['f1', 'f2']);
    expect((await sessions.signOut('browser-2')).revoked).toBe(2);
    expect(await store.get('refresh-f1')).toBeUndefined();
    expect(await store.get('refresh-f2')).toBeUndefined();
    expect(await sessions.families('browser-2')).toEqual([]);
  });

  it('keeps every code family and every consent when a consent is saved while codes are issued', async () => {
    const { sessions } = setup();
    await sessions.start('browser-1', 'alice');
    await Promise.all([
      sessions.codeIssued('browser-1', 'web', 'f1'),
      sessions.consentGiven('browser-1', 'web', ['openid', 'api1.read']),
      sessions.codeIssued('browser-1', 'web', 'f2'),
      sessions.consentGiven('browser-1', 'web', ['openid', 'profile']),
      sessions.consentGiven('browser-1', 'spa', ['openid']),
    ]);
    const session = await sessions.get('browser-1');
    expect((await sessions.families('browser-1')).sort()).toEqual(['f1', 'f2']);
    expect(session?.consents).toEqual({ web: ['openid', 'api1.read', 'profile'], spa: ['openid'] });
  });
});

describe('sign-in sessions, contracted', () => {
  it('reads the session record once for a client\'s first code', async () => {
    const store = createMemoryStore();
    const sessions = createSignInSessions({ store, clock: { now: () => Date.now() }, lifetimeSeconds: 3600, random: () => 0.99 });
    await sessions.start('browser-1', 'alice');
    const get = store.get.bind(store);
    const reads: string[] = [];
    store.get = (key) => (reads.push(key), get(key));
    await sessions.codeIssued('browser-1', 'web', 'f1');
    expect(reads.filter((k) => k === 'session:browser-1')).toHaveLength(1);
    expect((await sessions.get('browser-1'))?.clients).toEqual(['web']);
  });
});
