/** `SecondFactorStore` over SQL, for SQLite and PostgreSQL alike: one row per TOTP secret and per recovery code. */
import type { Kysely } from 'kysely';
import type { PasskeyRecord, SecondFactorStore } from '../second-factor-records.js';
import { DuplicateKeyError } from '../store.js';
import { isUniqueViolation } from './connectivity-error.js';
import type { Database } from './schema.js';

const optional = (v: number | string | null): number | undefined => (v === null ? undefined : Number(v));
/** A passkey's row id: the prefix keeps it apart from "totp" and the recovery codes' hashes. */
const passkeyPrefix = 'passkey:';

export function createSqlSecondFactors(db: Kysely<Database>, guard: <T>(operation: string, run: () => Promise<T>) => Promise<T>): SecondFactorStore {
  return {
    get: (subjectId) =>
      guard('factors.get', async () => {
        const rows = await db.selectFrom('user_second_factors').selectAll().where('subject_id', '=', subjectId).orderBy('created_at').orderBy('id').execute();
        const t = rows.find((r) => r.kind === 'totp');
        return {
          totp: t && { secret: t.secret, createdAt: Number(t.created_at), confirmedAt: optional(t.confirmed_at), lastStep: optional(t.last_step) },
          recoveryCodes: rows.filter((r) => r.kind === 'recovery').map((r) => ({ hash: r.secret, createdAt: Number(r.created_at), usedAt: optional(r.used_at) })),
          passkeys: rows.filter((r) => r.kind === 'passkey').map((r): PasskeyRecord => ({
            ...(JSON.parse(r.secret) as Pick<PasskeyRecord, 'publicKey' | 'transports' | 'name' | 'backedUp'>),
            credentialId: r.id.slice(passkeyPrefix.length), counter: Number(r.last_step ?? 0), createdAt: Number(r.created_at), lastUsedAt: optional(r.used_at),
          })),
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
    addPasskey: (subjectId, p) =>
      guard('factors.addPasskey', async () => {
        try {
          await db.insertInto('user_second_factors').values({
            subject_id: subjectId, id: passkeyPrefix + p.credentialId, kind: 'passkey',
            secret: JSON.stringify({ publicKey: p.publicKey, transports: p.transports, name: p.name, backedUp: p.backedUp }),
            created_at: p.createdAt, confirmed_at: p.createdAt, last_step: p.counter, used_at: null,
          }).execute();
        } catch (error) {
          if (isUniqueViolation(error)) throw new DuplicateKeyError();
          throw error;
        }
      }),
    usePasskey: (subjectId, credentialId, from, to, now) =>
      guard('factors.usePasskey', async () => {
        const result = await db.updateTable('user_second_factors').set({ last_step: to, used_at: now })
          .where('subject_id', '=', subjectId).where('id', '=', passkeyPrefix + credentialId).where('last_step', '=', from).executeTakeFirst();
        return Number(result.numUpdatedRows) === 1;
      }),
    // The name lives in the row's JSON beside what never changes (key, transports, backup state);
    // the counter, which does, has a column of its own, so this rewrite cannot undo a use.
    renamePasskey: (subjectId, credentialId, name) =>
      guard('factors.renamePasskey', async () => {
        const row = await db.selectFrom('user_second_factors').select('secret')
          .where('subject_id', '=', subjectId).where('id', '=', passkeyPrefix + credentialId).executeTakeFirst();
        if (!row) return false;
        const result = await db.updateTable('user_second_factors').set({ secret: JSON.stringify({ ...(JSON.parse(row.secret) as object), name }) })
          .where('subject_id', '=', subjectId).where('id', '=', passkeyPrefix + credentialId).executeTakeFirst();
        return Number(result.numUpdatedRows) === 1;
      }),
    removePasskey: (subjectId, credentialId) =>
      guard('factors.removePasskey', async () => {
        const result = await db.deleteFrom('user_second_factors').where('subject_id', '=', subjectId).where('id', '=', passkeyPrefix + credentialId).executeTakeFirst();
        return Number(result.numDeletedRows) > 0;
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
