import type BetterSqlite3 from 'better-sqlite3';
import type { QueryResult } from 'kysely';
import type { StatementRunner } from './prepared-query.js';

/**
 * Runs the store's per-request statements straight on the better-sqlite3 connection, with
 * group commit: every write asked for in one turn of the event loop runs in one transaction,
 * committed before any of them is answered.
 *
 * Each autocommitted write appends its own frames to the WAL, and the reference token's
 * B-tree pages are mostly the same from one insert to the next; sharing one commit writes each
 * page once per batch instead of once per request. Nothing is answered before its commit, so
 * what a caller was told was stored is stored, as with one transaction per write.
 *
 * Reads run at once: a write still in the batch has not been answered, so no caller can yet
 * depend on seeing it.
 */
export function sqliteStatementRunner(
  database: BetterSqlite3.Database,
  prepare: (sql: string) => BetterSqlite3.Statement,
): StatementRunner {
  let batch: PendingWrite[] = [];
  const begin = prepare('begin immediate');
  const commit = prepare('commit');
  const rollback = prepare('rollback');

  function flush(): void {
    if (batch.length === 0) return;
    // A transaction of the host's own (a migration) is open across awaits: wait for its end,
    // or these writes would join it.
    if (database.inTransaction) {
      setImmediate(flush);
      return;
    }
    const writes = batch;
    batch = [];
    const results: Array<QueryResult<unknown> | undefined> = [];
    try {
      begin.run();
    } catch (error) {
      for (const write of writes) write.reject(error);
      return;
    }
    for (const write of writes) {
      try {
        results.push(run(write.statement, write.parameters));
      } catch (error) {
        // A constraint failure undoes only its own statement; an I/O or full-disk error can
        // roll the whole transaction back, and then no write of the batch was kept.
        if (!database.inTransaction) {
          for (const other of writes) other.reject(error);
          return;
        }
        write.reject(error);
        results.push(undefined);
      }
    }
    try {
      commit.run();
    } catch (error) {
      if (database.inTransaction) {
        try {
          rollback.run();
        } catch {
          // Rolled back already; the commit's error is the one to report.
        }
      }
      for (const write of writes) write.reject(error);
      return;
    }
    writes.forEach((write, i) => {
      const result = results[i];
      if (result !== undefined) write.resolve(result);
    });
  }

  return {
    execute<R>(sql: string, parameters: readonly unknown[]): Promise<QueryResult<R>> {
      let statement: BetterSqlite3.Statement;
      try {
        statement = prepare(sql);
        if (statement.readonly) return Promise.resolve(run(statement, parameters) as QueryResult<R>);
      } catch (error) {
        return Promise.reject(error);
      }
      return new Promise<QueryResult<R>>((resolve, reject) => {
        if (batch.length === 0) setImmediate(flush);
        batch.push({ statement, parameters, resolve: resolve as (result: QueryResult<unknown>) => void, reject });
      });
    },
    // Commits what is waiting before the connection closes, so no answered write is dropped.
    drain: () => {
      if (!database.inTransaction) flush();
    },
  };
}

interface PendingWrite {
  readonly statement: BetterSqlite3.Statement;
  readonly parameters: readonly unknown[];
  resolve(result: QueryResult<unknown>): void;
  reject(error: unknown): void;
}

// The result shapes of Kysely's SQLite driver, so the store reads them the same on every backend.
function run(statement: BetterSqlite3.Statement, parameters: readonly unknown[]): QueryResult<unknown> {
  if (statement.reader) return { rows: statement.all(parameters) };
  const { changes } = statement.run(parameters);
  return { numAffectedRows: BigInt(changes), rows: [] };
}
