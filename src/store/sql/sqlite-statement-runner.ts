import type BetterSqlite3 from 'better-sqlite3';
import type { QueryResult } from 'kysely';
import { changedRows, type StatementRunner } from './prepared-query.js';

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
 *
 * `executeAll` (spend a one-time grant and store what it yields) joins the same batch under a
 * savepoint of its own: when its consume finds nothing or an insert fails, the savepoint is
 * rolled back and the rest of the turn's writes still commit.
 */
export function sqliteStatementRunner(
  database: BetterSqlite3.Database,
  prepare: (sql: string) => BetterSqlite3.Statement,
): StatementRunner {
  let batch: PendingWrite[] = [];
  const begin = prepare('begin immediate');
  const commit = prepare('commit');
  const rollback = prepare('rollback');
  // A group of statements that must be kept together (`executeAll`) runs inside the turn's
  // transaction under a savepoint: undoing it undoes only its own statements, not the batch.
  const savepoint = prepare('savepoint svc_group');
  const rollbackToSavepoint = prepare('rollback to svc_group');
  const releaseSavepoint = prepare('release svc_group');

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
    const kept: PendingWrite[] = [];
    try {
      begin.run();
    } catch (error) {
      for (const write of writes) write.reject(error);
      return;
    }
    for (const write of writes) {
      try {
        write.apply();
        kept.push(write);
      } catch (error) {
        // A constraint failure undoes only its own statement (or group); an I/O or full-disk
        // error can roll the whole transaction back, and then no write of the batch was kept.
        if (!database.inTransaction) {
          for (const other of writes) other.reject(error);
          return;
        }
        write.reject(error);
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
    for (const write of kept) write.settle();
  }

  function enqueue<T>(apply: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (batch.length === 0) setImmediate(flush);
      let result: T;
      batch.push({
        apply: () => void (result = apply()),
        settle: () => resolve(result),
        reject,
      });
    });
  }

  function runGroup(statements: readonly { statement: BetterSqlite3.Statement; parameters: readonly unknown[] }[]): number | undefined {
    savepoint.run();
    try {
      const unchanged = statements.findIndex(({ statement, parameters }) => !changedRows(run(statement, parameters)));
      if (unchanged >= 0) rollbackToSavepoint.run();
      releaseSavepoint.run();
      return unchanged >= 0 ? unchanged : undefined;
    } catch (error) {
      // The statement's failure left the transaction open: undo the group's other statements.
      if (database.inTransaction) {
        rollbackToSavepoint.run();
        releaseSavepoint.run();
      }
      throw error;
    }
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
      return enqueue(() => run(statement, parameters) as QueryResult<R>);
    },
    executeAll(statements) {
      let prepared;
      try {
        prepared = statements.map(({ sql, parameters }) => ({ statement: prepare(sql), parameters }));
      } catch (error) {
        return Promise.reject(error);
      }
      return enqueue(() => runGroup(prepared));
    },
    // Commits what is waiting before the connection closes, so no answered write is dropped.
    drain: () => {
      if (!database.inTransaction) flush();
    },
  };
}

/** One write waiting for the turn's transaction: run in it, then answered after its commit. */
interface PendingWrite {
  apply(): void;
  settle(): void;
  reject(error: unknown): void;
}

// The result shapes of Kysely's SQLite driver, so the store reads them the same on every backend.
function run(statement: BetterSqlite3.Statement, parameters: readonly unknown[]): QueryResult<unknown> {
  if (statement.reader) return { rows: statement.all(parameters) };
  const { changes } = statement.run(parameters);
  return { numAffectedRows: BigInt(changes), rows: [] };
}
