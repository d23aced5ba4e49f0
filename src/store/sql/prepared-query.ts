/**
 * A Kysely query compiled once, at start-up, and run many times with new parameter values.
 * Building and compiling a query costs more than SQLite takes to run it, so the store's
 * per-request queries (add, get, consume, update, remove) are compiled here once; the SQL text
 * still comes from Kysely, so both dialects keep one query definition.
 *
 * The query is built with a unique marker in place of each named parameter; compiling it tells
 * which marker landed in which position.
 */
import { CompiledQuery, type Compilable, type Kysely, type QueryResult } from 'kysely';

export interface PreparedQuery<P, R> {
  (params: P): Promise<QueryResult<R>>;
  /** The SQL text with these parameter values, to run as part of `StatementRunner.executeAll`. */
  bind(params: P): BoundStatement;
}

export interface BoundStatement {
  readonly sql: string;
  readonly parameters: readonly unknown[];
}

/** Runs one SQL text with positional parameters. */
export type ExecuteSql = <R>(sql: string, parameters: readonly unknown[]) => Promise<QueryResult<R>>;

/** How a backend runs the prepared queries (SQLite: straight on its connection, with group commit). */
export interface StatementRunner {
  readonly execute: ExecuteSql;
  /**
   * Runs the statements in order in one transaction, all or nothing: at the first one that
   * changes no row, every one is undone and its index is the answer; `undefined` means all
   * were kept. A statement that fails undoes them all and rejects.
   */
  executeAll(statements: readonly BoundStatement[]): Promise<number | undefined>;
  /** Runs any statement still waiting; called before the store closes. */
  drain(): void;
}

/** Runs statements through Kysely's driver (PostgreSQL's pool, for one). */
export function kyselyRunner<DB>(db: Kysely<DB>): StatementRunner {
  const execute = <R>(sql: string, parameters: readonly unknown[]) => db.executeQuery(CompiledQuery.raw(sql, [...parameters]) as CompiledQuery<R>);
  return {
    execute,
    async executeAll(statements) {
      try {
        // One transaction on one pooled connection.
        await db.transaction().execute(async (trx) => {
          for (const [index, { sql, parameters }] of statements.entries()) {
            if (!changedRows(await trx.executeQuery(CompiledQuery.raw(sql, [...parameters])))) throw new Unchanged(index);
          }
        });
        return undefined;
      } catch (error) {
        if (error instanceof Unchanged) return error.index;
        throw error;
      }
    },
    drain: () => {},
  };
}

/** Thrown inside a transaction to roll it back when a statement changed nothing. */
class Unchanged extends Error {
  constructor(readonly index: number) {
    super('statement changed no row');
  }
}

export function changedRows(result: QueryResult<unknown>): boolean {
  return Number(result.numAffectedRows ?? 0) > 0 || result.rows.length > 0;
}

export function prepareQuery<P extends object, R, DB>(
  db: Kysely<DB>,
  names: ReadonlyArray<keyof P & string>,
  build: (params: P) => Compilable<R>,
  runner: StatementRunner = kyselyRunner(db),
): PreparedQuery<P, R> {
  const markers = new Map<unknown, keyof P & string>();
  const placeholders: Record<string, unknown> = {};
  for (const name of names) {
    const marker = `\u0000svc-param:${name}`;
    markers.set(marker, name);
    placeholders[name] = marker;
  }
  const compiled = build(placeholders as P).compile();
  const order = compiled.parameters.map((value) => {
    const name = markers.get(value);
    if (name === undefined) throw new Error(`prepareQuery: the query has a parameter that is not one of ${names.join(', ')}: ${compiled.sql}`);
    return name;
  });
  const { execute } = runner;
  const query = (params: P) => execute<R>(compiled.sql, order.map((name) => params[name]));
  query.bind = (params: P): BoundStatement => ({ sql: compiled.sql, parameters: order.map((name) => params[name]) });
  return query;
}
