import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import type { Store } from '../store.js';
import type { Database } from './schema.js';
import { createSqlStore } from './sql-store.js';
import { postgresStatementRunner } from './postgres-statement-runner.js';
import { postgresGrantGroups } from './postgres-grant-groups.js';
import { postgresSpendAndAdd } from './postgres-spend-and-add.js';
import { buildOnlineIndexes } from './postgres-online-indexes.js';

export interface PostgresOptions {
  /** Schema to use instead of the server's default `search_path`, e.g. one per test run. */
  schema?: string;
  /** Most connections this process opens. Default 10. */
  maxConnections?: number;
  /** Called when an idle pooled connection fails (the pool drops it); defaults to ignoring it. */
  onPoolError?: (error: Error) => void;
}

const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * A `Store` over a PostgreSQL connection pool. Connects lazily: an unreachable server shows up
 * as `StoreUnavailableError` from the first call (`migrate`, `ping`, ...), not here.
 */
export function openPostgres(url: string, options: PostgresOptions = {}): Store {
  const pool = postgresPool(url, options);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  const grantGroups = postgresGrantGroups(pool);
  const spends = postgresSpendAndAdd(pool);
  return createSqlStore({
    name: 'PostgreSQL',
    db,
    statements: postgresStatementRunner(pool),
    grantRows: {
      ...grantGroups,
      spendAndAdd: spends.spendAndAdd,
      drain: async () => void (await Promise.all([grantGroups.drain(), spends.drain()])),
    },
    beforeMigrations: () => buildOnlineIndexes(pool),
    exclusiveTransaction: (fn) =>
      db.transaction().execute(async (trx) => {
        // Per schema, so separate deployments (or test runs) sharing a database do not queue.
        await sql`select pg_advisory_xact_lock(hashtext('svc-token-service:migrate'), hashtext(coalesce(current_schema(), '')))`.execute(
          trx,
        );
        await fn(trx);
      }),
    tableExists: async (name) =>
      (await sql<{ present: boolean }>`select to_regclass(${name}) is not null as present`.execute(db)).rows[0]?.present === true,
  });
}

/** The store's connection pool: bounded timeouts, error listeners, and a plan per execution. */
export function postgresPool(url: string, { schema, maxConnections = 10, onPoolError = () => {} }: PostgresOptions = {}): pg.Pool {
  if (schema !== undefined && !SCHEMA_NAME.test(schema)) {
    throw new Error(`Invalid PostgreSQL schema name "${schema}": use letters, digits and underscores.`);
  }

  const pool = new pg.Pool({
    connectionString: url,
    max: maxConnections,
    // Bounded everywhere, so a dead or overloaded server turns into a 503 instead of a hang.
    connectionTimeoutMillis: 3000,
    query_timeout: 5000,
    statement_timeout: 5000,
    idle_in_transaction_session_timeout: 10_000,
    ...(schema === undefined ? {} : { options: `-c search_path=${schema}` }),
  });
  // Without a listener, an idle client's error (server restart, network cut) crashes the process.
  pool.on('error', onPoolError);
  // A checked-out client whose socket dies mid-query rejects the query (the caller answers 503)
  // and then also emits 'error'; without a listener that would crash the process.
  pool.on('connect', (client) => {
    client.on('error', onPoolError);
    // The store's statements are prepared once per connection and run thousands of times, so
    // PostgreSQL soon caches one generic plan for each, costed on the table as it was then. A
    // table still small at that moment (a new deployment, the first minutes after a migration)
    // gets sequential scans, and they stay until an ANALYZE invalidates the plan, which never
    // comes where autovacuum is off or far behind: reads by key then slowed with the table's
    // growth (issue 40: a refresh row on PostgreSQL fell from 3,400 to 1,300 requests a second
    // in 30 s, its grouped reads taking 20–46 ms). A plan made for each execution, with the
    // table's size and the array's length as they are, keeps the primary-key index; planning
    // costs PostgreSQL well under a millisecond per statement, and the service's statements are
    // grouped per turn of the event loop. Queued before any statement of the connection.
    void client.query('set plan_cache_mode = force_custom_plan').catch(() => undefined);
  });

  return pool;
}
