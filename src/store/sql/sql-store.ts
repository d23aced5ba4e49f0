import { sql, type Compilable, type Kysely, type Selectable } from 'kysely';
import { hashKey } from '../hash-key.js';
import { assertFilterNotEmpty, duplicateSigningKey } from '../store-rules.js';
import {
  DuplicateKeyError,
  StoreUnavailableError,
  type PersistedGrant,
  type SigningKeyRecord,
  type Store,
} from '../store.js';
import { connectivityReason, isUniqueViolation } from './connectivity-error.js';
import { readMigrationStatus, recordContracts, runMigrations } from './run-migrations.js';
import { changedRows, kyselyRunner, prepareQuery, type StatementRunner } from './prepared-query.js';
import type { Database, PersistedGrantsTable, SigningKeysTable } from './schema.js';
import { createSqlClientRecords } from './sql-client-records.js';
import { createSqlUserRecords } from './sql-user-records.js';
import { createSqlSecondFactors } from './sql-second-factors.js';
import { createSqlLogoutDeliveries } from './sql-logout-deliveries.js';

/** What differs between SQLite and PostgreSQL; everything else is shared SQL. */
export interface SqlBackend {
  /** Names the backend in `StoreUnavailableError` messages, e.g. `"PostgreSQL"`. */
  readonly name: string;
  readonly db: Kysely<Database>;
  /** Runs `fn` in a transaction no other process can run at the same time. */
  exclusiveTransaction(fn: (trx: Kysely<Database>) => Promise<void>): Promise<void>;
  /** Work of pending migrations that must run outside their transaction (PostgreSQL: online index builds). */
  beforeMigrations?(): Promise<void>;
  /** Whether the table exists where the store's queries look (PostgreSQL: on the search_path). */
  tableExists(name: string): Promise<boolean>;
  /** Runs the per-request queries; by default, through Kysely. */
  readonly statements?: StatementRunner;
  /** Runs a lone grant insert and a read by key; by default, the prepared `add` and `get`. */
  readonly grantRows?: GrantRowStatements;
}

/** A lone grant insert (`add`, a `commit` of one insert) and a read by key (`get`). */
export interface GrantRowStatements {
  /** Stores the row as the prepared `add` does: `false` when a live grant holds its key. */
  insert(params: GrantParams): Promise<boolean>;
  /** The row under `key` (already hashed), as the prepared `get` reads it. */
  read(key: string): Promise<GrantRow | undefined>;
  /** Sends what is waiting and settles what was sent; called before the store closes. */
  drain(): Promise<void>;
  /**
   * A `commit` with rows to add in one statement (PostgreSQL: postgres-spend-and-add.ts): whether
   * it was written (`false`: the consume lost), or `'conflict'` when a key was held (or the
   * statement was aborted before it wrote anything), for the general path to decide.
   */
  spendAndAdd?: SpendAndAdd;
}

/** A `commit` with rows to add, in one statement of the backend's own. */
export type SpendAndAdd = (consume: { readonly key: string; readonly now: number } | undefined, rows: readonly GrantParams[]) => Promise<boolean | 'conflict'>;

const toMillis = (value: number | string): number => Number(value);
const toOptionalMillis = (value: number | string | null): number | undefined =>
  value === null ? undefined : Number(value);

function toGrant(key: string, row: Selectable<PersistedGrantsTable>): PersistedGrant {
  return {
    key,
    type: row.type,
    clientId: row.client_id,
    subjectId: row.subject_id ?? undefined,
    sessionId: row.session_id ?? undefined,
    createdAt: toMillis(row.created_at),
    expiresAt: toMillis(row.expires_at),
    consumedAt: toOptionalMillis(row.consumed_at),
    data: row.data,
  };
}

function toSigningKey(row: Selectable<SigningKeysTable>): SigningKeyRecord {
  return {
    kid: row.kid,
    alg: row.alg,
    privateJwk: row.private_jwk,
    createdAt: toMillis(row.created_at),
    activatesAt: toMillis(row.activates_at),
    retiresAt: toOptionalMillis(row.retires_at),
  };
}

export type GrantRow = Selectable<PersistedGrantsTable>;
interface KeyParam { key: string }
export interface GrantParams extends KeyParam {
  type: string;
  clientId: string;
  subjectId: string | null;
  sessionId: string | null;
  createdAt: number;
  expiresAt: number;
  consumedAt: number | null;
  data: string;
}
interface UpdateParams extends KeyParam {
  data: string;
  subjectId: string | null;
  expectedData: string | null;
}
const grantParams = (grant: PersistedGrant): GrantParams => ({
  key: hashKey(grant.key),
  type: grant.type,
  clientId: grant.clientId,
  subjectId: grant.subjectId ?? null,
  sessionId: grant.sessionId ?? null,
  createdAt: grant.createdAt,
  expiresAt: grant.expiresAt,
  consumedAt: grant.consumedAt ?? null,
  data: grant.data,
});
const grantColumns = ['key', 'type', 'clientId', 'subjectId', 'sessionId', 'createdAt', 'expiresAt', 'consumedAt', 'data'] as const;
/**
 * The columns a grant is read with, named rather than `*`: PostgreSQL keeps each prepared
 * statement's plan per connection, and a `*` statement fails with "cached plan must not change
 * result type" once a migration adds a column, on every node still running the old code.
 */
export const grantRowColumns = ['key', 'type', 'client_id', 'subject_id', 'session_id', 'created_at', 'expires_at', 'consumed_at', 'data'] as const;

/** The per-request queries, compiled once (see prepared-query.ts). */
function grantQueries(db: Kysely<Database>, runner: StatementRunner) {
  const prepare = <P extends object, R>(names: ReadonlyArray<keyof P & string>, build: (params: P) => Compilable<R>) =>
    prepareQuery<P, R, Database>(db, names, build, runner);
  const updateQuery = (setSubject: boolean, checkData: boolean) =>
    prepare<UpdateParams, never>(['key', 'data', ...(setSubject ? ['subjectId' as const] : []), ...(checkData ? ['expectedData' as const] : [])], (p) => {
      let query = db
        .updateTable('persisted_grants')
        .set(setSubject ? { data: p.data, subject_id: p.subjectId } : { data: p.data })
        .where('key', '=', p.key)
        .where('consumed_at', 'is', null);
      if (checkData) query = query.where('data', '=', p.expectedData!);
      return query;
    });
  return {
    // One statement, so two nodes adding the same key cannot both win; an expired holder of the key is replaced.
    add: prepare<GrantParams, never>(grantColumns, (p) =>
      db
        .insertInto('persisted_grants')
        .values({
          key: p.key,
          type: p.type,
          client_id: p.clientId,
          subject_id: p.subjectId,
          session_id: p.sessionId,
          created_at: p.createdAt,
          expires_at: p.expiresAt,
          consumed_at: p.consumedAt,
          data: p.data,
        })
        .onConflict((oc) =>
          oc
            .column('key')
            .doUpdateSet((eb) => ({
              type: eb.ref('excluded.type'),
              client_id: eb.ref('excluded.client_id'),
              subject_id: eb.ref('excluded.subject_id'),
              session_id: eb.ref('excluded.session_id'),
              created_at: eb.ref('excluded.created_at'),
              expires_at: eb.ref('excluded.expires_at'),
              consumed_at: eb.ref('excluded.consumed_at'),
              data: eb.ref('excluded.data'),
            }))
            .where('persisted_grants.expires_at', '<=', (eb) => eb.ref('excluded.created_at')),
        ),
    ),
    get: prepare<KeyParam, GrantRow>(['key'], (p) =>
      db.selectFrom('persisted_grants').select(grantRowColumns).where('key', '=', p.key),
    ),
    consume: prepare<KeyParam & { now: number }, GrantRow>(['key', 'now'], (p) =>
      db
        .updateTable('persisted_grants')
        .set({ consumed_at: p.now })
        .where('key', '=', p.key)
        .where('consumed_at', 'is', null)
        .where('expires_at', '>', p.now)
        .returning(grantRowColumns),
    ),
    // The same condition as `consume`, without reading the row back: a batch needs only whether it won.
    consumeOnly: prepare<KeyParam & { now: number }, never>(['key', 'now'], (p) =>
      db
        .updateTable('persisted_grants')
        .set({ consumed_at: p.now })
        .where('key', '=', p.key)
        .where('consumed_at', 'is', null)
        .where('expires_at', '>', p.now),
    ),
    update: [
      [updateQuery(false, false), updateQuery(false, true)],
      [updateQuery(true, false), updateQuery(true, true)],
    ] as const,
    remove: prepare<KeyParam, never>(['key'], (p) => db.deleteFrom('persisted_grants').where('key', '=', p.key)),
  };
}

/** The kinds the partial client index holds (migration 0008), and its condition as written there. */
const clientListedTypes: ReadonlySet<string> = new Set(['refresh_family', 'sign_in_session_client']);
const clientListedCondition = sql<boolean>`type in ('refresh_family', 'sign_in_session_client')`;

/** The `Store` over SQL; one implementation for every dialect. */
export function createSqlStore(backend: SqlBackend): Store {
  const { db } = backend;
  const runner = backend.statements ?? kyselyRunner(db);
  const queries = grantQueries(db, runner);
  const grantRows: GrantRowStatements = backend.grantRows ?? {
    insert: async (params) => changedRows(await queries.add(params)),
    read: async (key) => (await queries.get({ key })).rows[0],
    drain: async () => {},
  };
  let closed: Promise<void> | undefined;

  // Connectivity failures become `StoreUnavailableError` (503); the message names only the
  // operation and the reason code, never a key or any stored value.
  async function guard<T>(operation: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      const reason = connectivityReason(error);
      if (reason === undefined) throw error;
      throw new StoreUnavailableError(`${backend.name} store unavailable during ${operation}: ${reason}.`, {
        cause: error,
      });
    }
  }

  return {
    migrate: () =>
      guard('migrate', async () => {
        await backend.beforeMigrations?.();
        await backend.exclusiveTransaction((trx) => runMigrations(trx, Date.now()));
      }),

    contract: () =>
      guard('contract', () => backend.exclusiveTransaction((trx) => recordContracts(trx, Date.now()))),

    migrationStatus: () =>
      guard('migration status', async () => readMigrationStatus(db, await backend.tableExists('svc_schema_migrations'))),

    add: (grant) =>
      guard('add', async () => {
        if (!(await grantRows.insert(grantParams(grant)))) throw new DuplicateKeyError();
      }),

    get: (key) =>
      guard('get', async () => {
        const row = await grantRows.read(hashKey(key));
        return row && toGrant(key, row);
      }),

    commit: ({ consume, add }) =>
      guard('commit', async () => {
        // A plain reference-token issue: one insert, as cheap as an `add`.
        if (consume === undefined && add.length === 1) {
          if (await grantRows.insert(grantParams(add[0]!))) return true;
          throw new DuplicateKeyError();
        }
        if (grantRows.spendAndAdd !== undefined && add.length > 0) {
          const written = await grantRows.spendAndAdd(consume && { key: hashKey(consume.key), now: consume.now }, add.map(grantParams));
          if (written !== 'conflict') return written;
        }
        const statements = [
          ...(consume === undefined ? [] : [queries.consumeOnly.bind({ key: hashKey(consume.key), now: consume.now })]),
          ...add.map((grant) => queries.add.bind(grantParams(grant))),
        ];
        if (statements.length === 0) return true;
        // A lone consume is atomic by itself: it skips the savepoint (SQLite) or transaction
        // (PostgreSQL).
        const unchanged =
          statements.length === 1
            ? changedRows(await runner.execute(statements[0]!.sql, statements[0]!.parameters)) ? undefined : 0
            : await runner.executeAll(statements);
        if (unchanged === undefined) return true;
        if (consume !== undefined && unchanged === 0) return false;
        throw new DuplicateKeyError();
      }),

    consume: (key, now) =>
      guard('consume', async () => {
        const [row] = (await queries.consume({ key: hashKey(key), now })).rows;
        return row && toGrant(key, row);
      }),

    update: (key, { data, subjectId, expectedData }) =>
      guard('update', async () => {
        const run = queries.update[subjectId === undefined ? 0 : 1][expectedData === undefined ? 0 : 1];
        const result = await run({ key: hashKey(key), data, subjectId: subjectId ?? null, expectedData: expectedData ?? null });
        return Number(result.numAffectedRows ?? 0) > 0;
      }),

    remove: (key) =>
      guard('remove', async () => {
        await queries.remove({ key: hashKey(key) });
      }),

    removeAll: (filter) =>
      guard('removeAll', async () => {
        assertFilterNotEmpty(filter);
        let query = db.deleteFrom('persisted_grants');
        if (filter.subjectId !== undefined) query = query.where('subject_id', '=', filter.subjectId);
        if (filter.clientId !== undefined) query = query.where('client_id', '=', filter.clientId);
        if (filter.sessionId !== undefined) query = query.where('session_id', '=', filter.sessionId);
        if (filter.type !== undefined) query = query.where('type', '=', filter.type);
        // As in `listGrants`: the partial client index applies when its condition is repeated.
        if (filter.clientId !== undefined && filter.type !== undefined && clientListedTypes.has(filter.type)) query = query.where(clientListedCondition);
        const result = await query.executeTakeFirst();
        return Number(result.numDeletedRows);
      }),

    listGrants: (filter, { now, limit, after }) =>
      guard('listGrants', async () => {
        let query = db.selectFrom('persisted_grants').select(grantRowColumns)
          .where('type', '=', filter.type).where('expires_at', '>', now);
        if (filter.subjectId !== undefined) query = query.where('subject_id', '=', filter.subjectId);
        if (filter.clientId !== undefined) {
          query = query.where('client_id', '=', filter.clientId);
          // The client index's own condition, word for word (migration 0008): only then may the
          // planner use that partial index.
          if (clientListedTypes.has(filter.type)) query = query.where(clientListedCondition);
        }
        if (filter.sessionId !== undefined) query = query.where('session_id', '=', filter.sessionId);
        if (after !== undefined) query = query.where('key', '>', after);
        const rows = await query.orderBy('key').limit(limit).execute();
        return rows.map((row) => toGrant(row.key, row));
      }),

    removeStored: (storedKey) =>
      guard('removeStored', async () => {
        const result = await db.deleteFrom('persisted_grants').where('key', '=', storedKey).executeTakeFirst();
        return Number(result.numDeletedRows) > 0;
      }),

    findAll: (filter, now) =>
      guard('findAll', async () => {
        assertFilterNotEmpty(filter);
        let query = db.selectFrom('persisted_grants').selectAll().where('expires_at', '>', now);
        if (filter.subjectId !== undefined) query = query.where('subject_id', '=', filter.subjectId);
        if (filter.clientId !== undefined) query = query.where('client_id', '=', filter.clientId);
        if (filter.sessionId !== undefined) query = query.where('session_id', '=', filter.sessionId);
        if (filter.type !== undefined) query = query.where('type', '=', filter.type);
        // As in `listGrants`: the partial client index applies when its condition is repeated.
        if (filter.clientId !== undefined && filter.type !== undefined && clientListedTypes.has(filter.type)) query = query.where(clientListedCondition);
        return (await query.execute()).map((row) => toGrant(row.key, row));
      }),

    removeExpired: (now, batchSize) =>
      guard('removeExpired', async () => {
        // Bounded and ordered by the expiry index (`persisted_grants_expires_at`): each batch is a
        // short statement that touches only the rows it deletes, so it never holds locks for
        // long or scans the live rows; the sweeper repeats it until a batch comes back short.
        const result = await db
          .deleteFrom('persisted_grants')
          .where('key', 'in', (eb) =>
            eb.selectFrom('persisted_grants').select('key').where('expires_at', '<', now).orderBy('expires_at').limit(batchSize),
          )
          .executeTakeFirst();
        return Number(result.numDeletedRows);
      }),

    countExpired: (now) =>
      guard('countExpired', async () => {
        // A range over the expiry index: it reads only the backlog, never the live rows.
        const rows = await db
          .selectFrom('persisted_grants')
          .select((eb) => ['type', eb.fn.countAll<number | string>().as('n')])
          .where('expires_at', '<', now)
          .groupBy('type')
          .execute();
        return Object.fromEntries(rows.map((row) => [row.type, Number(row.n)]));
      }),

    listSigningKeys: () =>
      guard('listSigningKeys', async () => {
        const rows = await db.selectFrom('signing_keys').selectAll().orderBy('created_at').orderBy('kid').execute();
        return rows.map(toSigningKey);
      }),

    addSigningKey: (key) =>
      guard('addSigningKey', async () => {
        try {
          await db
            .insertInto('signing_keys')
            .values({
              kid: key.kid,
              alg: key.alg,
              private_jwk: key.privateJwk,
              created_at: key.createdAt,
              activates_at: key.activatesAt,
              retires_at: key.retiresAt ?? null,
            })
            .execute();
        } catch (error) {
          if (isUniqueViolation(error)) throw duplicateSigningKey(key.kid);
          throw error;
        }
      }),

    updateSigningKey: (kid, changes) =>
      guard('updateSigningKey', async () => {
        await db
          .updateTable('signing_keys')
          .set({
            ...('retiresAt' in changes ? { retires_at: changes.retiresAt ?? null } : {}),
            ...(changes.privateJwk === undefined ? {} : { private_jwk: changes.privateJwk }),
          })
          .where('kid', '=', kid)
          .execute();
      }),

    removeSigningKey: (kid) =>
      guard('removeSigningKey', async () => {
        await db.deleteFrom('signing_keys').where('kid', '=', kid).execute();
      }),

    clientRecords: createSqlClientRecords(db, guard),
    users: createSqlUserRecords(db, guard),
    factors: createSqlSecondFactors(db, guard),
    logoutDeliveries: createSqlLogoutDeliveries(db, guard),

    ping: () =>
      guard('ping', async () => {
        await db.selectNoFrom((eb) => eb.lit(1).as('one')).execute();
      }),

    close: () => {
      runner.drain();
      return (closed ??= grantRows.drain().then(() => db.destroy()));
    },
  };
}
