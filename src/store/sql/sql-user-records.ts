/**
 * `UserRecordStore` over SQL, for SQLite and PostgreSQL alike. A sign-in reads one user by its
 * indexed username key and writes `last_sign_in_at` once; the CLI writes one user at a time.
 */
import type { Kysely, Selectable } from 'kysely';
import { DuplicateKeyError } from '../store.js';
import { usernameKey, type StoredUser, type UpstreamIdentity, type UserRecordStore } from '../user-records.js';
import { isUniqueViolation } from './connectivity-error.js';
import type { Database, UserIdentitiesTable, UsersTable } from './schema.js';

const optionalMillis = (v: number | string | null): number | undefined => (v === null ? undefined : Number(v));

const toIdentity = (row: Selectable<UserIdentitiesTable>): UpstreamIdentity => ({
  provider: row.provider, issuer: row.issuer, subject: row.subject, linkedAt: Number(row.linked_at),
});

function toUser(row: Selectable<UsersTable>, identities: readonly UpstreamIdentity[]): StoredUser {
  return {
    subjectId: row.subject_id,
    username: row.username,
    email: row.email ?? undefined,
    emailVerified: row.email_verified !== 0,
    claims: JSON.parse(row.claims) as StoredUser['claims'],
    disabled: row.disabled !== 0,
    passwordHash: row.password_hash ?? undefined,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    lastSignInAt: optionalMillis(row.last_sign_in_at),
    upstreamIdentities: identities,
  };
}

/** Runs `write`, turning a unique-index violation into `DuplicateKeyError`. */
async function unique<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error)) throw new DuplicateKeyError();
    throw error;
  }
}

export function createSqlUserRecords(db: Kysely<Database>, guard: <T>(operation: string, run: () => Promise<T>) => Promise<T>): UserRecordStore {
  async function withIdentities(rows: Selectable<UsersTable>[]): Promise<StoredUser[]> {
    if (rows.length === 0) return [];
    const ids = rows.map((r) => r.subject_id);
    const linked = await db.selectFrom('user_identities').selectAll().where('user_subject_id', 'in', ids).orderBy('linked_at').orderBy('provider').execute();
    const byUser = new Map<string, UpstreamIdentity[]>();
    for (const l of linked) byUser.set(l.user_subject_id, [...(byUser.get(l.user_subject_id) ?? []), toIdentity(l)]);
    return rows.map((r) => toUser(r, byUser.get(r.subject_id) ?? []));
  }
  const one = async (rows: Selectable<UsersTable>[]): Promise<StoredUser | undefined> => (await withIdentities(rows))[0];

  return {
    list: () =>
      guard('users.list', async () => {
        const rows = await db.selectFrom('users').selectAll().orderBy('username_key').execute();
        // Every identity at once: `in (...)` over every user would overflow SQLite's parameter limit.
        const linked = await db.selectFrom('user_identities').selectAll().orderBy('linked_at').orderBy('provider').execute();
        const byUser = new Map<string, UpstreamIdentity[]>();
        for (const l of linked) byUser.set(l.user_subject_id, [...(byUser.get(l.user_subject_id) ?? []), toIdentity(l)]);
        return rows.map((r) => toUser(r, byUser.get(r.subject_id) ?? []));
      }),
    getBySubject: (subjectId) =>
      guard('users.getBySubject', async () => one(await db.selectFrom('users').selectAll().where('subject_id', '=', subjectId).execute())),
    getByUsername: (username) =>
      guard('users.getByUsername', async () => one(await db.selectFrom('users').selectAll().where('username_key', '=', usernameKey(username)).execute())),
    add: (user) =>
      guard('users.add', async () => {
        await unique(() =>
          db
            .insertInto('users')
            .values({
              subject_id: user.subjectId,
              username: user.username,
              username_key: usernameKey(user.username),
              email: user.email ?? null,
              email_verified: user.emailVerified ? 1 : 0,
              claims: JSON.stringify(user.claims),
              disabled: user.disabled ? 1 : 0,
              password_hash: user.passwordHash ?? null,
              created_at: user.createdAt,
              updated_at: user.createdAt,
              last_sign_in_at: null,
            })
            .execute(),
        );
      }),
    update: (subjectId, changes, now) =>
      guard('users.update', async () => {
        const result = await unique(() =>
          db
            .updateTable('users')
            .set({
              updated_at: now,
              ...(changes.username === undefined ? {} : { username: changes.username, username_key: usernameKey(changes.username) }),
              ...(changes.email === undefined ? {} : { email: changes.email }),
              ...(changes.emailVerified === undefined ? {} : { email_verified: changes.emailVerified ? 1 : 0 }),
              ...(changes.claims === undefined ? {} : { claims: JSON.stringify(changes.claims) }),
              ...(changes.disabled === undefined ? {} : { disabled: changes.disabled ? 1 : 0 }),
              ...(changes.passwordHash === undefined ? {} : { password_hash: changes.passwordHash }),
            })
            .where('subject_id', '=', subjectId)
            .executeTakeFirst(),
        );
        return Number(result.numUpdatedRows) > 0;
      }),
    signedIn: (subjectId, now, rehash) =>
      guard('users.signedIn', async () => {
        await db.updateTable('users').set({ last_sign_in_at: now }).where('subject_id', '=', subjectId).execute();
        if (rehash) {
          // Only over the hash the sign-in checked: a password set in between is kept.
          await db
            .updateTable('users')
            .set({ password_hash: rehash.to })
            .where('subject_id', '=', subjectId)
            .where('password_hash', '=', rehash.from)
            .execute();
        }
      }),
    remove: (subjectId) =>
      guard('users.remove', async () => {
        await db.deleteFrom('user_identities').where('user_subject_id', '=', subjectId).execute();
        const result = await db.deleteFrom('users').where('subject_id', '=', subjectId).executeTakeFirst();
        return Number(result.numDeletedRows) > 0;
      }),
    link: (subjectId, identity) =>
      guard('users.link', async () => {
        const exists = await db.selectFrom('users').select('subject_id').where('subject_id', '=', subjectId).executeTakeFirst();
        if (!exists) return false;
        await unique(() =>
          db
            .insertInto('user_identities')
            .values({ provider: identity.provider, subject: identity.subject, issuer: identity.issuer, user_subject_id: subjectId, linked_at: identity.linkedAt })
            .execute(),
        );
        return true;
      }),
    unlink: (subjectId, provider, subject) =>
      guard('users.unlink', async () => {
        let query = db.deleteFrom('user_identities').where('user_subject_id', '=', subjectId).where('provider', '=', provider);
        if (subject !== undefined) query = query.where('subject', '=', subject);
        return Number((await query.executeTakeFirst()).numDeletedRows);
      }),
    findByUpstream: (provider, subject) =>
      guard('users.findByUpstream', async () => {
        const link = await db.selectFrom('user_identities').select('user_subject_id').where('provider', '=', provider).where('subject', '=', subject).executeTakeFirst();
        if (!link) return undefined;
        return one(await db.selectFrom('users').selectAll().where('subject_id', '=', link.user_subject_id).execute());
      }),
  };
}
