/**
 * `LogoutDeliveryStore` over SQL, for SQLite and PostgreSQL alike. A claim reads the due rows
 * over the `due_at` index, then takes each with a compare-and-set on its `due_at` and `attempts`
 * (an `update ... where` that changes one row or none): of two nodes reading the same row, only
 * one update matches, without locks held between the statements.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import type { ClaimedDelivery, LogoutDelivery, LogoutDeliveryStore } from '../logout-deliveries.js';
import type { Database, LogoutDeliveriesTable } from './schema.js';

const toDelivery = (row: Selectable<LogoutDeliveriesTable>): LogoutDelivery => ({
  id: row.id, clientId: row.client_id, subject: row.subject, sid: row.sid, ...(row.request_id === null ? {} : { requestId: row.request_id }), attempts: Number(row.attempts),
  dueAt: Number(row.due_at), createdAt: Number(row.created_at), expiresAt: Number(row.expires_at),
});

export function createSqlLogoutDeliveries(db: Kysely<Database>, guard: <T>(operation: string, run: () => Promise<T>) => Promise<T>): LogoutDeliveryStore {
  return {
    enqueue: (deliveries) =>
      guard('logoutDeliveries.enqueue', async () => {
        if (deliveries.length === 0) return;
        await db.insertInto('logout_deliveries').values(deliveries.map((d) => ({
          id: d.id, client_id: d.clientId, subject: d.subject, sid: d.sid, request_id: d.requestId ?? null, attempts: 0, claim: null,
          due_at: d.dueAt, created_at: d.createdAt, expires_at: d.expiresAt,
        }))).execute();
      }),
    claim: (now, leaseMs, limit) =>
      guard('logoutDeliveries.claim', async () => {
        const due = await db.selectFrom('logout_deliveries').selectAll().where('due_at', '<=', now).orderBy('due_at').limit(limit).execute();
        const claimed: ClaimedDelivery[] = [];
        for (const row of due) {
          const claim = randomUUID();
          const leaseUntil = now + leaseMs;
          const result = await db.updateTable('logout_deliveries')
            .set({ claim, due_at: leaseUntil, attempts: Number(row.attempts) + 1 })
            .where('id', '=', row.id).where('due_at', '=', Number(row.due_at)).where('attempts', '=', Number(row.attempts))
            .executeTakeFirst();
          if (Number(result.numUpdatedRows) !== 1) continue; // another node took it first
          claimed.push({ ...toDelivery(row), attempts: Number(row.attempts) + 1, dueAt: leaseUntil, claim, leaseUntil });
        }
        return claimed;
      }),
    finish: (id, claim) =>
      guard('logoutDeliveries.finish', async () => {
        const result = await db.deleteFrom('logout_deliveries').where('id', '=', id).where('claim', '=', claim).executeTakeFirst();
        return Number(result.numDeletedRows) === 1;
      }),
    retryAt: (id, claim, dueAt) =>
      guard('logoutDeliveries.retryAt', async () => {
        const result = await db.updateTable('logout_deliveries').set({ due_at: dueAt, claim: null })
          .where('id', '=', id).where('claim', '=', claim).executeTakeFirst();
        return Number(result.numUpdatedRows) === 1;
      }),
    count: () =>
      guard('logoutDeliveries.count', async () => {
        const row = await db.selectFrom('logout_deliveries').select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow();
        return Number(row.n);
      }),
  };
}
