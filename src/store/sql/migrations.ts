import { sql, type Kysely } from 'kysely';

export interface Migration {
  /** Recorded in `svc_schema_migrations`; never rename or reorder a shipped migration. */
  readonly id: string;
  /** Written with the schema builder only, so SQLite and PostgreSQL share it. */
  up(db: Kysely<unknown>): Promise<void>;
  /**
   * PostgreSQL only: an index this migration creates, built first without blocking writes
   * (`create index concurrently`, outside the migration's transaction and its statement
   * timeout: postgres-online-indexes.ts), so the migration's own `create index if not exists`
   * finds it. On a large table the build takes minutes; nodes keep serving meanwhile.
   */
  readonly onlineIndex?: { readonly name: string; readonly definition: string };
}

/** Every schema change, oldest first. Append only. */
export const migrations: readonly Migration[] = [
  {
    id: '0001-persisted-grants-and-signing-keys',
    async up(db) {
      await db.schema
        .createTable('persisted_grants')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('client_id', 'text', (c) => c.notNull())
        .addColumn('subject_id', 'text')
        .addColumn('session_id', 'text')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .addColumn('consumed_at', 'bigint')
        .addColumn('data', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('persisted_grants_expires_at')
        .on('persisted_grants')
        .column('expires_at')
        .execute();
      await db.schema
        .createIndex('persisted_grants_subject_client_type')
        .on('persisted_grants')
        .columns(['subject_id', 'client_id', 'type'])
        .execute();
      await db.schema
        .createIndex('persisted_grants_session_id')
        .on('persisted_grants')
        .column('session_id')
        .execute();

      await db.schema
        .createTable('signing_keys')
        .addColumn('kid', 'text', (c) => c.primaryKey())
        .addColumn('alg', 'text', (c) => c.notNull())
        .addColumn('private_jwk', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('activates_at', 'bigint', (c) => c.notNull())
        .addColumn('retires_at', 'bigint')
        .execute();
    },
  },
  {
    // Most grants (reference tokens, assertion ids, device codes) have no session and many no
    // subject: indexing only the rows that have one makes every such insert update two B-trees
    // fewer. `x = ?` implies `x is not null`, so both databases still use these for the lookups.
    id: '0002-partial-subject-and-session-indexes',
    async up(db) {
      await db.schema.dropIndex('persisted_grants_subject_client_type').execute();
      await db.schema.dropIndex('persisted_grants_session_id').execute();
      await db.schema
        .createIndex('persisted_grants_subject_client_type')
        .on('persisted_grants')
        .columns(['subject_id', 'client_id', 'type'])
        .where('subject_id', 'is not', null)
        .execute();
      await db.schema
        .createIndex('persisted_grants_session_id')
        .on('persisted_grants')
        .column('session_id')
        .where('session_id', 'is not', null)
        .execute();
    },
  },
  {
    // The guessing counters every node shares when `counters: "store"` (src/throttling/postgres-counters.ts).
    // Created on SQLite too, where nothing uses it: migrations are one list for both databases.
    id: '0003-rate-counters',
    async up(db) {
      await db.schema
        .createTable('rate_counters')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('failures', 'integer', (c) => c.notNull())
        .addColumn('threshold', 'integer', (c) => c.notNull())
        .addColumn('last_at', 'bigint', (c) => c.notNull())
        .addColumn('blocked_until', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('rate_counters_expires_at').on('rate_counters').column('expires_at').execute();
    },
  },
  {
    // Clients and API resources managed at run time (issue 19; src/store/client-records.ts).
    id: '0004-client-records',
    async up(db) {
      await db.schema
        .createTable('client_records')
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('id', 'text', (c) => c.notNull())
        .addColumn('definition', 'text', (c) => c.notNull())
        .addColumn('disabled', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .addColumn('last_used_at', 'bigint')
        .addPrimaryKeyConstraint('client_records_pk', ['kind', 'id'])
        .execute();
      await db.schema
        .createTable('client_secrets')
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('owner_id', 'text', (c) => c.notNull())
        .addColumn('id', 'text', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('value', 'text', (c) => c.notNull())
        .addColumn('description', 'text')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint')
        .addPrimaryKeyConstraint('client_secrets_pk', ['kind', 'owner_id', 'id'])
        .execute();
      // One row: the version every node polls to see a change (see client-records.ts).
      await db.schema
        .createTable('client_records_version')
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .addColumn('version', 'bigint', (c) => c.notNull())
        .execute();
      await (db as unknown as Kysely<{ client_records_version: { id: number; version: number } }>)
        .insertInto('client_records_version')
        .values({ id: 1, version: 0 })
        .execute();
    },
  },
  {
    // Users the service keeps (issue 34; src/store/user-records.ts). `username_key` is the
    // case-folded name the unique index compares; `username` keeps the name as it was given.
    id: '0005-users',
    async up(db) {
      await db.schema
        .createTable('users')
        .addColumn('subject_id', 'text', (c) => c.primaryKey())
        .addColumn('username', 'text', (c) => c.notNull())
        .addColumn('username_key', 'text', (c) => c.notNull().unique())
        .addColumn('email', 'text')
        .addColumn('email_verified', 'integer', (c) => c.notNull())
        .addColumn('claims', 'text', (c) => c.notNull())
        .addColumn('disabled', 'integer', (c) => c.notNull())
        .addColumn('password_hash', 'text')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .addColumn('last_sign_in_at', 'bigint')
        .execute();
      // For linking by verified e-mail (upstream sign-in): not unique, two users may share one.
      await db.schema.createIndex('users_email').on('users').column('email').where('email', 'is not', null).execute();
      await db.schema
        .createTable('user_identities')
        .addColumn('provider', 'text', (c) => c.notNull())
        .addColumn('subject', 'text', (c) => c.notNull())
        .addColumn('issuer', 'text', (c) => c.notNull())
        .addColumn('user_subject_id', 'text', (c) => c.notNull())
        .addColumn('linked_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('user_identities_pk', ['provider', 'subject'])
        .execute();
      await db.schema.createIndex('user_identities_user').on('user_identities').column('user_subject_id').execute();
    },
  },
  {
    // Second factors of the users the service keeps (issue 35; src/store/second-factor-records.ts):
    // one row per TOTP secret (`id` "totp", `secret` sealed) and per recovery code (`id` and
    // `secret` its hash). New table only: a node of the previous version never reads it.
    id: '0006-user-second-factors',
    async up(db) {
      await db.schema
        .createTable('user_second_factors')
        .addColumn('subject_id', 'text', (c) => c.notNull())
        .addColumn('id', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('secret', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('confirmed_at', 'bigint')
        .addColumn('last_step', 'bigint')
        .addColumn('used_at', 'bigint')
        .addPrimaryKeyConstraint('user_second_factors_pk', ['subject_id', 'id'])
        .execute();
    },
  },
  {
    // Issue 37: the back-channel logout queue (src/store/logout-deliveries.ts). A new table only
    // (expand-only): nodes of the previous version never read it and keep running beside new ones.
    id: '0007-logout-deliveries',
    async up(db) {
      await db.schema
        .createTable('logout_deliveries')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('client_id', 'text', (c) => c.notNull())
        .addColumn('subject', 'text', (c) => c.notNull())
        .addColumn('sid', 'text', (c) => c.notNull())
        .addColumn('request_id', 'text')
        .addColumn('attempts', 'integer', (c) => c.notNull())
        .addColumn('claim', 'text')
        .addColumn('due_at', 'bigint', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .execute();
      // Every worker's poll is a range over it: only the due rows are read.
      await db.schema.createIndex('logout_deliveries_due_at').on('logout_deliveries').column('due_at').execute();
    },
  },
  {
    // Issue 39: the admin API's lists by client (`listGrants` with `clientId`: a client's grants,
    // and its sign-in sessions through their `sign_in_session_client` records). Their query is
    // `client_id = ? and type = ? and <the index's condition> and expires_at > ? [and key > ?]
    // order by key limit ?`: the two equalities lead this index and `key` follows, so a page is a
    // range read in order, with no sort and no scan of the client's other kinds. Partial, on the
    // two listed kinds only (issue 40): the rows made on every request (reference tokens, used
    // `jti`s, refresh tokens) pay no extra B-tree insert; the queries repeat the condition word
    // for word, which is how SQLite knows the index applies (and PostgreSQL's generic plan). The plans (test/store/grant-indexes.integration.test.ts checks them; the
    // PostgreSQL one is the generic plan of the prepared query over 200,000 rows of 50 clients):
    //   SQLite:     SEARCH persisted_grants USING INDEX persisted_grants_client_type_key (client_id=? AND type=? AND key>?)
    //   PostgreSQL: Limit -> Index Scan using persisted_grants_client_type_key on persisted_grants
    //                 Index Cond: ((client_id = $3) AND (type = $1) AND (key > $4)), Filter: (expires_at > $2)
    // Before it, both read every row of the type (SQLite: the primary key in order; PostgreSQL: a
    // sequential scan). Expand-only: the previous release neither knows nor minds it.
    // `if not exists`: on PostgreSQL the index is built `concurrently` before this transaction
    // (`onlineIndex`), so a large table is indexed without blocking writes or meeting the
    // statement timeout; SQLite builds it here.
    id: '0008-grants-by-client-index',
    onlineIndex: {
      name: 'persisted_grants_client_type_key',
      definition: "on persisted_grants (client_id, type, key) where type in ('refresh_family', 'sign_in_session_client')",
    },
    async up(db) {
      await db.schema
        .createIndex('persisted_grants_client_type_key')
        .ifNotExists()
        .on('persisted_grants')
        .columns(['client_id', 'type', 'key'])
        .where(sql<boolean>`type in ('refresh_family', 'sign_in_session_client')`)
        .execute();
    },
  },
];
