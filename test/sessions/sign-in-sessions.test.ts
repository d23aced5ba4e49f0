import { describe, expect, it } from 'vitest';
import { createSignInSessions, maxFamilies, sessionClientType } from '../../src/sessions/sign-in-sessions.js';
import { createMemoryStore } from '../../src/store/memory-store.js';

describe('sign-in sessions', () => {
  const setup = () => {
    const store = createMemoryStore();
    return { store, sessions: createSignInSessions({ store, clock: { now: () => Date.now() }, lifetimeSeconds: 3600 }) };
  };

  it('records every code issued at once in one browser (many tabs), none lost and none refused', async () => {
    const { sessions } = setup();
    await sessions.start('browser-1', 'alice');
    const families = Array.from({ length: 64 }, (_, i) => `family-${i}`);
    await Promise.all(families.map((family, i) => sessions.codeIssued('browser-1', i % 2 ? 'web' : 'spa', family)));
    const session = await sessions.get('browser-1');
    expect([...(session?.families ?? [])].sort()).toEqual([...families].sort());
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
    expect((await sessions.get('browser-1'))?.families).toEqual(['a1', 'a2']);
    expect((await sessions.get('browser-2'))?.families).toEqual(['b1']);
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

  it(`keeps the newest ${maxFamilies} families`, async () => {
    const { sessions } = setup();
    await sessions.start('browser-1', 'alice');
    for (let i = 0; i < maxFamilies + 3; i++) await sessions.codeIssued('browser-1', 'web', `f${i}`);
    const families = (await sessions.get('browser-1'))?.families ?? [];
    expect(families).toHaveLength(maxFamilies);
    expect(families[0]).toBe('f3');
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
    expect(session?.families).toEqual(['f1', 'f2']);
    expect(session?.consents).toEqual({ web: ['openid', 'api1.read', 'profile'], spa: ['openid'] });
  });
});
