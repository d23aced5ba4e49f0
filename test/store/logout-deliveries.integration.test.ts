/**
 * The back-channel logout queue (issue 37) on every backend: a claim is a lease only one caller
 * gets, a retry is due when it says, a holder whose lease ran out and was overtaken can neither
 * finish nor reschedule what the new holder holds.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/store.js';
import { T0, backends, type TestDatabase } from './backends.js';

const delivery = (id: string, dueAt = T0) => ({ id, clientId: 'web', subject: 'alice', sid: 'sid-1', dueAt, createdAt: T0, expiresAt: T0 + 86_400_000 });

for (const backend of backends) {
  describe.skipIf(backend.skipReason !== undefined)(`logout deliveries: ${backend.name}`, () => {
    let database: TestDatabase;
    let store: Store;

    beforeEach(async () => {
      database = await backend.createDatabase();
      store = database.open();
      await store.migrate();
    });
    afterEach(async () => {
      await store.close();
      await database.drop();
    });

    it('gives each due delivery to one claimer, for the lease, counting the attempt', async () => {
      await store.logoutDeliveries.enqueue([{ ...delivery('d1'), requestId: 'req-7' }, delivery('d2', T0 + 5000)]);
      // Two instances (two pools, as two nodes have) where the backend has them.
      const other = database.open();
      const [first, second] = await Promise.all([store.logoutDeliveries.claim(T0, 30_000, 10), other.logoutDeliveries.claim(T0, 30_000, 10)]);
      if (other !== store) await other.close();
      const claimed = [...first!, ...second!];
      expect(claimed.map((d) => d.id)).toEqual(['d1']);
      expect(claimed[0]).toMatchObject({ clientId: 'web', subject: 'alice', sid: 'sid-1', requestId: 'req-7', attempts: 1, leaseUntil: T0 + 30_000 });
      // Held: nobody gets it before the lease ends; d2 is due at T0 + 5 s.
      const [d2] = await store.logoutDeliveries.claim(T0 + 29_999, 30_000, 10);
      expect(d2).toMatchObject({ id: 'd2' });
      expect(d2).not.toHaveProperty('requestId');
      expect(await store.logoutDeliveries.count()).toBe(2);
    });

    it('hands a delivery whose lease ran out to the next claimer; the old holder can no longer touch it', async () => {
      await store.logoutDeliveries.enqueue([delivery('d1')]);
      const [dead] = await store.logoutDeliveries.claim(T0, 30_000, 10);
      const [next] = await store.logoutDeliveries.claim(T0 + 30_000, 30_000, 10);
      expect(next).toMatchObject({ id: 'd1', attempts: 2 });
      expect(await store.logoutDeliveries.finish('d1', dead!.claim)).toBe(false);
      expect(await store.logoutDeliveries.retryAt('d1', dead!.claim, T0)).toBe(false);
      expect(await store.logoutDeliveries.finish('d1', next!.claim)).toBe(true);
      expect(await store.logoutDeliveries.count()).toBe(0);
    });

    it('makes a rescheduled delivery due at its retry time, and not before', async () => {
      await store.logoutDeliveries.enqueue([delivery('d1')]);
      const [held] = await store.logoutDeliveries.claim(T0, 30_000, 10);
      expect(await store.logoutDeliveries.retryAt('d1', held!.claim, T0 + 40_000)).toBe(true);
      expect(await store.logoutDeliveries.claim(T0 + 39_999, 30_000, 10)).toEqual([]);
      expect((await store.logoutDeliveries.claim(T0 + 40_000, 30_000, 10)).map((d) => [d.id, d.attempts])).toEqual([['d1', 2]]);
    });

    it('finds the unexpired sign-in sessions of a subject (what svc users disable tells)', async () => {
      const session = { key: 'session:b1', type: 'sign_in_session', clientId: '', subjectId: 'alice', sessionId: undefined, createdAt: T0, expiresAt: T0 + 1000, consumedAt: undefined, data: '{"sid":"s1"}' };
      await store.add(session);
      await store.add({ ...session, key: 'session:b2', expiresAt: T0 + 10, data: '{"sid":"old"}' });
      await store.add({ ...session, key: 'session:b3', subjectId: 'bob', data: '{"sid":"bob"}' });
      expect((await store.findAll({ subjectId: 'alice', type: 'sign_in_session' }, T0 + 100)).map((g) => g.data)).toEqual(['{"sid":"s1"}']);
    });
  });
}
