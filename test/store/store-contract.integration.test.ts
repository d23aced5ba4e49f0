import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startExpiredGrantSweeper } from '../../src/store/expired-grant-sweeper.js';
import { hashKey } from '../../src/store/hash-key.js';
import { migrations } from '../../src/store/sql/migrations.js';
import { contracts } from '../../src/store/sql/contracts.js';
import { DuplicateKeyError, type PersistedGrant, type SigningKeyRecord, type Store } from '../../src/store/store.js';
import { T0, backends, type TestDatabase } from './backends.js';

function grant(key: string, overrides: Partial<PersistedGrant> = {}): PersistedGrant {
  return {
    key,
    type: 'refresh_token',
    clientId: 'client-a',
    subjectId: 'alice',
    sessionId: 'family-1',
    createdAt: T0,
    expiresAt: T0 + 60_000,
    consumedAt: undefined,
    data: '{"scope":"api"}',
    ...overrides,
  };
}

function signingKey(kid: string, overrides: Partial<SigningKeyRecord> = {}): SigningKeyRecord {
  return {
    kid,
    alg: 'ES256',
    privateJwk: `{"kty":"EC","kid":"${kid}"}`,
    createdAt: T0,
    activatesAt: T0 + 1000,
    retiresAt: undefined,
    ...overrides,
  };
}

for (const backend of backends) {
  describe.skipIf(backend.skipReason !== undefined)(`Store contract: ${backend.name}`, () => {
    let database: TestDatabase;
    let store: Store;
    let drop: (() => Promise<void>) | undefined;

    beforeEach(async () => {
      database = await backend.createDatabase();
      drop = database.drop;
      store = database.open();
      await store.migrate();
    });

    afterEach(async () => {
      await drop?.();
      drop = undefined;
    });

    it('reads back what it stored, under the caller’s handle', async () => {
      const bigTimes = grant('handle-1', { createdAt: 2 ** 50, expiresAt: 2 ** 50 + 1 });
      await store.add(grant('handle-0', { subjectId: undefined, sessionId: undefined }));
      await store.add(bigTimes);

      expect(await store.get('handle-0')).toEqual(grant('handle-0', { subjectId: undefined, sessionId: undefined }));
      const read = await store.get('handle-1');
      expect(read).toEqual(bigTimes);
      expect(typeof read?.expiresAt).toBe('number');
      expect(await store.get('unknown')).toBeUndefined();
    });

    // Only the SQL backends have a table to read back; the memory store has no copy to leak.
    if (backend.name !== 'memory') it('stores only the hash of each handle', async () => {
      const handle = 'secret-handle-7f3a9c';
      await store.add(grant(handle));

      const rows = await database.rawGrantRows();
      expect(rows).toHaveLength(1);
      expect(JSON.stringify(rows)).not.toContain(handle);
      expect(rows![0]!.key).toBe(hashKey(handle));
    });

    it('rejects a second live grant under the same key and keeps the first', async () => {
      await store.add(grant('dup'));
      await expect(store.add(grant('dup', { createdAt: T0 + 59_999, data: 'second' }))).rejects.toBeInstanceOf(
        DuplicateKeyError,
      );
      expect((await store.get('dup'))?.data).toBe(grant('dup').data);
    });

    it('replaces an expired grant under the same key', async () => {
      await store.add(grant('reused', { expiresAt: T0 + 1000 }));
      await store.consume('reused', T0 + 10);
      const replacement = grant('reused', { createdAt: T0 + 1000, expiresAt: T0 + 5000, data: 'new' });

      await store.add(replacement);

      expect(await store.get('reused')).toEqual(replacement);
    });

    // PostgreSQL sends the adds of one turn as one statement (postgres-grant-inserts.ts).
    it('stores exactly one of 20 adds of one key made at once, on one store and on two', async () => {
      const other = database.open();
      const attempts = Array.from({ length: 20 }, (_, i) =>
        (i % 4 === 3 ? other : store).add(grant('same', { data: `try-${i}` })).then(() => i, () => undefined));
      const stored = (await Promise.all(attempts)).filter((i) => i !== undefined);

      expect(stored).toHaveLength(1);
      expect((await store.get('same'))?.data).toBe(`try-${stored[0]}`);
    });

    it('answers each of 1,200 adds made at once, with their duplicates refused, and reads every value back exactly', async () => {
      const awkward = ['', '"quoted"', 'back\\slash', '{"a":[1,{"b":null}]}', 'NULL', 'a,b', '{}', 'ünïcødé ✓ \u{1F510}', 'line\nbreak', "it's"];
      const grants = Array.from({ length: 1_200 }, (_, i) =>
        grant(`bulk-${i}`, { data: awkward[i % awkward.length]!, subjectId: i % 3 === 0 ? undefined : `NULL`, createdAt: T0 + i }));
      await store.add(grant('bulk-7', { data: 'first' }));

      const outcomes = await Promise.all(grants.map((g) => store.add(g).then(() => 'stored', (error: unknown) => error)));

      expect(outcomes.filter((o) => o !== 'stored')).toEqual([expect.any(DuplicateKeyError)]);
      expect(outcomes[7]).toBeInstanceOf(DuplicateKeyError);
      expect((await store.get('bulk-7'))?.data).toBe('first');
      for (const g of grants.filter((_, i) => i !== 7)) expect(await store.get(g.key)).toEqual(g);
    });

    it('answers each of 700 reads made at once with its own grant, or none', async () => {
      const stored = Array.from({ length: 300 }, (_, i) => grant(`read-${i}`, { data: `data-${i}`, createdAt: T0 + i }));
      for (const g of stored) await store.add(g);

      const keys = Array.from({ length: 700 }, (_, i) => `read-${(i * 7) % 400}`);
      const reads = await Promise.all(keys.map((key) => store.get(key)));

      reads.forEach((read, i) => {
        const n = (i * 7) % 400;
        expect(read).toEqual(n < 300 ? stored[n] : undefined);
      });
    });

    it('lets consume win once, and never for expired, consumed or unknown grants', async () => {
      await store.add(grant('once'));
      await store.add(grant('expiring', { expiresAt: T0 + 1000 }));

      expect(await store.consume('once', T0 + 5)).toEqual(grant('once', { consumedAt: T0 + 5 }));
      expect(await store.consume('once', T0 + 6)).toBeUndefined();
      expect((await store.get('once'))?.consumedAt).toBe(T0 + 5);
      expect(await store.consume('expiring', T0 + 1000)).toBeUndefined();
      expect(await store.consume('unknown', T0)).toBeUndefined();
    });

    it('lets exactly one of 20 concurrent consumers on one store (one pool) win', async () => {
      await store.add(grant('race'));

      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => store.consume('race', T0 + i)));

      expect(results.filter((result) => result !== undefined)).toHaveLength(1);
    });

    it('lets exactly one of 20 concurrent consumers on two store instances win', async () => {
      const other = database.open();
      await store.add(grant('race'));

      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? store : other).consume('race', T0 + i)),
      );

      const winners = results.filter((result) => result !== undefined);
      expect(winners).toHaveLength(1);
      expect((await store.get('race'))?.consumedAt).toBe(winners[0]!.consumedAt);
    });

    it('commits a consume and its inserts together, and writes nothing when the consume loses', async () => {
      await store.add(grant('spent'));
      await store.add(grant('gone', { expiresAt: T0 + 10 }));
      const yielded = [grant('access-1', { type: 'reference_token' }), grant('refresh-2')];

      expect(await store.commit({ consume: { key: 'spent', now: T0 + 5 }, add: yielded })).toBe(true);
      expect((await store.get('spent'))?.consumedAt).toBe(T0 + 5);
      expect(await store.get('access-1')).toEqual(yielded[0]);
      expect(await store.get('refresh-2')).toEqual(yielded[1]);

      const again = [grant('access-3', { type: 'reference_token' })];
      expect(await store.commit({ consume: { key: 'spent', now: T0 + 6 }, add: again })).toBe(false);
      expect(await store.commit({ consume: { key: 'gone', now: T0 + 10 }, add: again })).toBe(false);
      expect(await store.commit({ consume: { key: 'unknown', now: T0 }, add: again })).toBe(false);
      expect(await store.get('access-3')).toBeUndefined();
      expect((await store.get('gone'))?.consumedAt).toBeUndefined();
      expect(await store.commit({ add: again })).toBe(true);
      expect(await store.get('access-3')).toBeDefined();
    });

    it('writes nothing of a batch whose insert hits a live key, and leaves the grant unconsumed', async () => {
      await store.add(grant('spent'));
      await store.add(grant('taken'));

      await expect(
        store.commit({ consume: { key: 'spent', now: T0 + 1 }, add: [grant('fresh'), grant('taken', { data: 'other' })] }),
      ).rejects.toBeInstanceOf(DuplicateKeyError);

      expect((await store.get('spent'))?.consumedAt).toBeUndefined();
      expect(await store.get('fresh')).toBeUndefined();
      expect((await store.get('taken'))?.data).toBe(grant('taken').data);
    });

    it('replaces an expired holder of a key in a batch, as add does, and still spends the grant', async () => {
      await store.add(grant('spent'));
      await store.add(grant('stale', { expiresAt: T0 + 2, data: 'old' }));

      expect(await store.commit({ consume: { key: 'spent', now: T0 + 5 }, add: [grant('next'), grant('stale', { createdAt: T0 + 5, data: 'new' })] })).toBe(true);

      expect((await store.get('spent'))?.consumedAt).toBe(T0 + 5);
      expect((await store.get('stale'))?.data).toBe('new');
      expect(await store.get('next')).toBeDefined();
    });

    it('answers each of many commits made at once by its own consume, and writes only the winners’ rows', async () => {
      // One turn of the event loop: PostgreSQL sends these as one statement (postgres-spend-and-add.ts).
      const fresh = Array.from({ length: 40 }, (_, i) => `own-${i}`);
      for (const key of [...fresh, 'used', 'late', 'held-spent']) await store.add(grant(key, key === 'late' ? { expiresAt: T0 + 3 } : {}));
      await store.add(grant('holder'));
      expect(await store.commit({ consume: { key: 'used', now: T0 + 1 }, add: [] })).toBe(true);
      const yields = (owner: string) => [grant(`${owner}/family`, { type: 'refresh_family' }), grant(`${owner}/token`)];

      const outcomes = await Promise.allSettled([
        ...fresh.map((key) => store.commit({ consume: { key, now: T0 + 5 }, add: yields(key) })),
        store.commit({ consume: { key: 'used', now: T0 + 5 }, add: yields('used') }),
        store.commit({ consume: { key: 'late', now: T0 + 5 }, add: yields('late') }),
        store.commit({ consume: { key: 'nobody', now: T0 + 5 }, add: yields('nobody') }),
        // The same grant twice at once: one of the two wins.
        store.commit({ consume: { key: 'own-0', now: T0 + 5 }, add: yields('own-0-again') }),
        // A row under a live key: that commit is refused whole, its grant left unspent.
        store.commit({ consume: { key: 'held-spent', now: T0 + 5 }, add: [grant('held-spent/token'), grant('holder', { data: 'other' })] }),
      ]);

      const answers = outcomes.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value : outcome.reason));
      const ownZero = [answers[0], answers[43]];
      expect(ownZero.filter((answer) => answer === true)).toHaveLength(1);
      expect(ownZero.filter((answer) => answer === false)).toHaveLength(1);
      expect(answers.slice(1, 40)).toEqual(Array(39).fill(true));
      expect(answers.slice(40, 43)).toEqual([false, false, false]);
      expect(answers[44]).toBeInstanceOf(DuplicateKeyError);

      for (const key of fresh.slice(1)) {
        expect((await store.get(key))?.consumedAt).toBe(T0 + 5);
        expect(await store.get(`${key}/family`)).toEqual(yields(key)[0]);
        expect(await store.get(`${key}/token`)).toEqual(yields(key)[1]);
      }
      const [winner, loser] = answers[0] === true ? ['own-0', 'own-0-again'] : ['own-0-again', 'own-0'];
      expect(await store.get(`${winner}/token`)).toBeDefined();
      expect(await store.get(`${loser}/token`)).toBeUndefined();
      for (const key of ['used', 'late', 'nobody']) expect(await store.get(`${key}/token`)).toBeUndefined();
      expect((await store.get('late'))?.consumedAt).toBeUndefined();
      expect((await store.get('held-spent'))?.consumedAt).toBeUndefined();
      expect(await store.get('held-spent/token')).toBeUndefined();
      expect((await store.get('holder'))?.data).toBe(grant('holder').data);
    });

    it('lets exactly one of 20 concurrent batches spending one grant on two store instances write', async () => {
      const other = database.open();
      await store.add(grant('race'));

      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          (i % 2 === 0 ? store : other).commit({ consume: { key: 'race', now: T0 + 1 }, add: [grant(`yield-${i}`)] }),
        ),
      );

      expect(results.filter(Boolean)).toHaveLength(1);
      const written = await Promise.all(results.map((_, i) => store.get(`yield-${i}`)));
      expect(written.map((g) => g !== undefined)).toEqual(results);
    });

    it('updates data only while unconsumed, and only when expectedData still matches', async () => {
      await store.add(grant('u'));

      expect(await store.update('u', { data: 'v2' })).toBe(true);
      expect(await store.update('u', { data: 'v3', expectedData: 'stale' })).toBe(false);
      expect((await store.get('u'))?.data).toBe('v2');
      expect(await store.update('u', { data: 'v3', subjectId: 'bob', expectedData: 'v2' })).toBe(true);
      expect(await store.get('u')).toMatchObject({ data: 'v3', subjectId: 'bob' });

      await store.consume('u', T0 + 1);
      expect(await store.update('u', { data: 'v4' })).toBe(false);
      expect(await store.update('unknown', { data: 'v4' })).toBe(false);
      expect((await store.get('u'))?.data).toBe('v3');
    });

    it('lists the live grants of a type by filter, a page at a time by stored key, and removes one by that key', async () => {
      await store.add(grant('l1'));
      await store.add(grant('l2'));
      await store.add(grant('l3', { clientId: 'client-b' }));
      await store.add(grant('l4', { subjectId: 'bob' }));
      await store.add(grant('l5', { type: 'reference_token' }));
      await store.add(grant('l6', { expiresAt: T0 + 10 }));
      const now = T0 + 20;

      const alice = await store.listGrants({ type: 'refresh_token', subjectId: 'alice' }, { now, limit: 10 });
      const keys = ['l1', 'l2', 'l3'].map(hashKey).sort();
      expect(alice.map((g) => g.key)).toEqual(keys);
      expect(alice.find((g) => g.key === hashKey('l3'))).toMatchObject({ clientId: 'client-b', subjectId: 'alice', sessionId: 'family-1', data: '{"scope":"api"}' });
      expect((await store.listGrants({ type: 'refresh_token', clientId: 'client-b' }, { now, limit: 10 })).map((g) => g.key)).toEqual([hashKey('l3')]);
      const first = await store.listGrants({ type: 'refresh_token', subjectId: 'alice' }, { now, limit: 2 });
      expect(first.map((g) => g.key)).toEqual(keys.slice(0, 2));
      const rest = await store.listGrants({ type: 'refresh_token', subjectId: 'alice' }, { now, limit: 2, after: first[1]!.key });
      expect(rest.map((g) => g.key)).toEqual(keys.slice(2));

      expect(await store.removeStored(hashKey('l1'))).toBe(true);
      expect(await store.removeStored(hashKey('l1'))).toBe(false);
      expect(await store.get('l1')).toBeUndefined();
      expect(await store.get('l2')).toBeDefined();
    });

    it('removes one grant, or every grant matching a filter', async () => {
      await store.add(grant('a1'));
      await store.add(grant('a2', { type: 'reference_token', sessionId: 'family-2' }));
      await store.add(grant('a3', { clientId: 'client-b' }));
      await store.add(grant('b1', { subjectId: 'bob', sessionId: 'family-3' }));
      await store.add(grant('b2', { subjectId: 'bob', sessionId: 'family-3', clientId: 'client-b' }));
      await store.add(grant('c1', { subjectId: undefined, sessionId: undefined, type: 'device_code' }));

      await expect(store.removeAll({})).rejects.toThrow(/at least one/);
      await expect(store.removeAll({ subjectId: undefined })).rejects.toThrow(/at least one/);
      expect(await store.removeAll({ subjectId: 'alice', clientId: 'client-a', type: 'refresh_token' })).toBe(1);
      expect(await store.get('a1')).toBeUndefined();
      expect(await store.removeAll({ sessionId: 'family-3' })).toBe(2);
      expect(await store.removeAll({ clientId: 'client-b' })).toBe(1);
      expect(await store.removeAll({ subjectId: 'nobody' })).toBe(0);
      await store.remove('c1');
      await store.remove('never-there');

      const left = await Promise.all(['a1', 'a2', 'a3', 'b1', 'b2', 'c1'].map((key) => store.get(key)));
      expect(left.map((g) => g?.key)).toEqual([undefined, 'a2', undefined, undefined, undefined, undefined]);
    });

    it('removes expired grants in bounded batches, leaving live ones', async () => {
      for (let i = 0; i < 5; i++) await store.add(grant(`old-${i}`, { expiresAt: T0 + 1000 + i }));
      await store.add(grant('expires-at-now', { expiresAt: T0 + 2000 }));
      await store.add(grant('live', { expiresAt: T0 + 9000 }));

      const counts = [];
      for (let i = 0; i < 4; i++) counts.push(await store.removeExpired(T0 + 2000, 2));

      expect(counts).toEqual([2, 2, 1, 0]);
      expect(await store.get('old-4')).toBeUndefined();
      expect(await store.get('expires-at-now')).toBeDefined();
      expect(await store.get('live')).toBeDefined();
    });

    it('adds, lists, retires and removes signing keys', async () => {
      await store.addSigningKey(signingKey('k2', { createdAt: T0 + 10 }));
      await store.addSigningKey(signingKey('k1', { retiresAt: 2 ** 45 }));
      await expect(store.addSigningKey(signingKey('k1'))).rejects.toThrow(/k1.*already exists/);

      expect(await store.listSigningKeys()).toEqual([
        signingKey('k1', { retiresAt: 2 ** 45 }),
        signingKey('k2', { createdAt: T0 + 10 }),
      ]);

      await store.updateSigningKey('k2', { retiresAt: T0 + 500 });
      await store.updateSigningKey('k1', { retiresAt: undefined });
      expect((await store.listSigningKeys()).map((k) => [k.kid, k.retiresAt])).toEqual([
        ['k1', undefined],
        ['k2', T0 + 500],
      ]);

      // Re-encryption replaces the stored key and leaves the dates alone.
      await store.updateSigningKey('k2', { privateJwk: '{"sealed":"A256GCM"}' });
      expect((await store.listSigningKeys()).map((k) => [k.kid, k.privateJwk, k.retiresAt])).toEqual([
        ['k1', signingKey('k1').privateJwk, undefined],
        ['k2', '{"sealed":"A256GCM"}', T0 + 500],
      ]);

      await store.removeSigningKey('k1');
      expect((await store.listSigningKeys()).map((k) => k.kid)).toEqual(['k2']);
    });

    it('treats a second migrate as a no-op', async () => {
      await store.add(grant('kept'));
      await store.migrate();

      expect(await store.get('kept')).toBeDefined();
      const applied = await database.appliedMigrations();
      // A new database records every contract step with its migrations.
      if (applied !== undefined) expect(applied).toBe(migrations.length + contracts.length);
    });

    it('migrates safely when two instances start at the same moment', async () => {
      const fresh = await backend.createDatabase();
      try {
        const [a, b] = [fresh.open(), fresh.open()];
        await Promise.all([a.migrate(), b.migrate()]);

        await a.add(grant('after-race'));
        expect(await b.get('after-race')).toBeDefined();
        const applied = await fresh.appliedMigrations();
        if (applied !== undefined) expect(applied).toBe(migrations.length + contracts.length);
      } finally {
        await fresh.drop();
      }
    });

    it('answers ping', async () => {
      await expect(store.ping()).resolves.toBeUndefined();
    });

    it('is swept of expired grants by the sweeper', async () => {
      for (let i = 0; i < 5; i++) await store.add(grant(`swept-${i}`, { expiresAt: T0 + 100 }));
      await store.add(grant('survivor', { expiresAt: T0 + 100_000 }));
      const onError = vi.fn();

      const sweeper = startExpiredGrantSweeper({
        store,
        intervalSeconds: 0.01,
        batchSize: 2,
        clock: { now: () => T0 + 1000 },
        onError,
      });
      try {
        await vi.waitFor(async () => expect(await store.get('swept-4')).toBeUndefined(), { timeout: 2000 });
      } finally {
        sweeper.stop();
      }

      expect(await store.get('swept-0')).toBeUndefined();
      expect(await store.get('survivor')).toBeDefined();
      expect(onError).not.toHaveBeenCalled();
    });
  });
}
