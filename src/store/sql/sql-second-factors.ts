/** `SecondFactorStore` over SQL, for SQLite and PostgreSQL alike: one row per TOTP secret and per recovery code. */
import type { Kysely } from 'kysely';
import type { SecondFactorStore } from '../second-factor-records.js';
import type { Database } from './schema.js';

const optional = (v: number | string | null): number | undefined => (v === null ? undefined : Number(v));

export function createSqlSecondFactors(db: Kysely<Database>, guard: <T>(operation: string, run: () => Promise<T>) => Promise<T>): SecondFactorStore {
  return {
    get: (subjectId) =>
      guard('factors.get', async () => {
        const rows = await db.selectFrom('user_second_factors').selectAll().where('subject_id', '=', subjectId).orderBy('created_at').orderBy('id').execute();
        const t = rows.find((r) => r.kind === 'totp');
        return {
          totp: t && { secret: t.secret, createdAt: Number(t.created_at), confirmedAt: optional(t.confirmed_at), lastStep: optional(t.last_step) },
          recoveryCodes: rows.filter((r) => r.kind === 'recovery').map((r) => ({ hash: r.secret, createdAt: Number(r.created_at), usedAt: optional(r.used_at) })),
        };
      }),
    putTotp: (subjectId, secret, now) =>
      guard('factors.putTotp', () =>
        db.transaction().execute(async (tx) => {
          await tx.deleteFrom('user_second_factors').where('subject_id', '=', subjectId).where('kind', '=', 'totp').execute();
          await tx.insertInto('user_second_factors').values({
            subject_id: subjectId, id: 'totp', kind: 'totp', secret, created_at: now, confirmed_at: null, last_step: null, used_at: null,
          }).execute();
        })),
    acceptTotpStep: (subjectId, secret, step, now, confirm) =>
      guard('factors.acceptTotpStep', async () => {
        const result = await db
          .updateTable('user_second_factors')
          .set({ last_step: step, ...(confirm ? { confirmed_at: now } : {}) })
          .where('subject_id', '=', subjectId)
          .where('id', '=', 'totp')
          .where('secret', '=', secret)
          .where('confirmed_at', confirm ? 'is' : 'is not', null)
          .where((eb) => eb.or([eb('last_step', 'is', null), eb('last_step', '<', step)]))
          .executeTakeFirst();
        return Number(result.numUpdatedRows) === 1;
      }),
    putRecoveryCodes: (subjectId, hashes, now) =>
      guard('factors.putRecoveryCodes', () =>
        db.transaction().execute(async (tx) => {
          await tx.deleteFrom('user_second_factors').where('subject_id', '=', subjectId).where('kind', '=', 'recovery').execute();
          await tx.insertInto('user_second_factors').values(hashes.map((hash) => ({
            subject_id: subjectId, id: hash, kind: 'recovery', secret: hash, created_at: now, confirmed_at: null, last_step: null, used_at: null,
          }))).execute();
        })),
    spendRecoveryCode: (subjectId, hash, now) =>
      guard('factors.spendRecoveryCode', async () => {
        const result = await db
          .updateTable('user_second_factors')
          .set({ used_at: now })
          .where('subject_id', '=', subjectId)
          .where('id', '=', hash)
          .where('kind', '=', 'recovery')
          .where('used_at', 'is', null)
          .executeTakeFirst();
        return Number(result.numUpdatedRows) === 1;
      }),
    listTotpSecrets: () =>
      guard('factors.listTotpSecrets', async () =>
        (await db.selectFrom('user_second_factors').select(['subject_id', 'secret']).where('kind', '=', 'totp').orderBy('subject_id').execute())
          .map((r) => ({ subjectId: r.subject_id, secret: r.secret }))),
    resealTotp: (subjectId, from, to) =>
      guard('factors.resealTotp', async () => {
        const result = await db.updateTable('user_second_factors').set({ secret: to })
          .where('subject_id', '=', subjectId).where('id', '=', 'totp').where('secret', '=', from).executeTakeFirst();
        return Number(result.numUpdatedRows) === 1;
      }),
    remove: (subjectId, kind) =>
      guard('factors.remove', async () => {
        let query = db.deleteFrom('user_second_factors').where('subject_id', '=', subjectId);
        if (kind !== undefined) query = query.where('kind', '=', kind);
        return Number((await query.executeTakeFirst()).numDeletedRows);
      }),
  };
}
