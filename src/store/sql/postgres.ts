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
  const { schema, maxConnections = 10, onPoolError = () => {} } = options;
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
  pool.on('connect', (client) => client.on('error', onPoolError));

  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return createSqlStore({
    name: 'PostgreSQL',
    db,
    statements: postgresStatementRunner(pool),
    grantRows: { ...postgresGrantGroups(pool), spendAndAdd: postgresSpendAndAdd(pool) },
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
