import { mkdirSync } from 'node:fs';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { dirname, resolve } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import type { Store } from '../store.js';
import type { Database } from './schema.js';
import { createOwnerOnly, filesOpenToOthers, type WideFile } from './file-modes.js';
import { createSqlStore } from './sql-store.js';
import { sqliteStatementRunner } from './sqlite-statement-runner.js';

export interface SqliteOptions {
  /** How long a write waits for another connection's lock before `StoreUnavailableError`. Default 5000. */
  busyTimeoutMs?: number;
  /** Told of each existing database file (the database, `-wal`, `-shm`) that other local users can read or write. */
  onFileOpenToOthers?: (file: WideFile) => void;
}

const IN_MEMORY = ':memory:';

/**
 * Opens (creating the file and its folder if needed, for the owner only: `file-modes.ts`) a
 * SQLite database as a `Store`; `":memory:"` gives a private in-memory one. Throws an error naming the path and the reason
 * when it cannot be opened.
 */
export function openSqlite(path: string, options: SqliteOptions = {}): Store {
  if (path !== IN_MEMORY && options.onFileOpenToOthers) filesOpenToOthers(path).forEach(options.onFileOpenToOthers);
  const database = openDatabase(path, options.busyTimeoutMs ?? 5000);
  const prepare = statementCache(database);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: { prepare, close: () => database.close() } }) });
  const queueKey = path === IN_MEMORY ? undefined : resolve(path);

  const store = createSqlStore({
    name: 'SQLite',
    db,
    statements: sqliteStatementRunner(database, prepare),
    exclusiveTransaction: (fn) => {
      const run = () => immediateTransaction(db, fn);
      return queueKey === undefined ? run() : queueInProcess(queueKey, run);
    },
    tableExists: async (name) =>
      (await sql<{ found: number }>`select count(*) as found from sqlite_master where type = 'table' and name = ${name}`.execute(db)).rows[0]?.found === 1,
  });
  return {
    ...store,
    // better-sqlite3 runs each statement synchronously, so a sweep's batches would otherwise run
    // back to back with the event loop blocked; a turn before each lets waiting requests go first.
    removeExpired: async (now, batchSize) => {
      await nextTurn();
      return store.removeExpired(now, batchSize);
    },
  };
}

function openDatabase(path: string, busyTimeoutMs: number): BetterSqlite3.Database {
  let database: BetterSqlite3.Database | undefined;
  try {
    if (path !== IN_MEMORY) {
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      createOwnerOnly(path);
    }
    database = new BetterSqlite3(path);
    // WAL lets readers run while one connection writes; busy_timeout makes writers wait, not fail.
    // Assertion ids are random-key inserts and every token lookup lands on a random page: a
    // 64 MiB page cache (default 2 MiB) and memory-mapped reads keep them off the disk.
    // `exec`, not `pragma()`: pragma() leaves a statement behind for the garbage collector (see
    // `statementCache`).
    database.exec(
      [
        `PRAGMA busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`,
        ...(path !== IN_MEMORY ? ['PRAGMA journal_mode = WAL', 'PRAGMA mmap_size = 268435456'] : []),
        'PRAGMA synchronous = NORMAL',
        'PRAGMA cache_size = -65536',
      ].join('; '),
    );
    return database;
  } catch (error) {
    database?.close();
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`Cannot open the SQLite store at "${path}": ${reason}`, { cause: error });
  }
}

/**
 * Kysely's SQLite driver prepares every statement it runs; preparing costs about as much as
 * running one of ours. The store's SQL texts are few and fixed (see prepared-query.ts), so each
 * is prepared once and kept for the life of the connection.
 *
 * Kept, never dropped: on Node 24.19 and later, better-sqlite3 12 aborts the process when the
 * garbage collector finalizes a statement (nodejs/node#65446; better-sqlite3 13 fixes it but
 * needs Node 22). Past the cap, which the store's fixed queries never reach, a statement is
 * prepared per call.
 */
function statementCache(database: BetterSqlite3.Database, max = 200): (text: string) => BetterSqlite3.Statement {
  const statements = new Map<string, BetterSqlite3.Statement>();
  return (text) => {
    let statement = statements.get(text);
    if (statement === undefined) {
      statement = database.prepare(text);
      if (statements.size < max) statements.set(text, statement);
    }
    return statement;
  };
}

// IMMEDIATE takes the write lock up front; a deferred transaction that reads and then writes
// could fail with SQLITE_BUSY instead of waiting for the other migrator.
function immediateTransaction(db: Kysely<Database>, fn: (trx: Kysely<Database>) => Promise<void>): Promise<void> {
  return db.connection().execute(async (connection) => {
    await sql`begin immediate`.execute(connection);
    try {
      await fn(connection);
      await sql`commit`.execute(connection);
    } catch (error) {
      await sql`rollback`.execute(connection).catch(() => {});
      throw error;
    }
  });
}

// better-sqlite3 waits for a lock synchronously, blocking the event loop, so two connections of
// one process would deadlock if both held a transaction across awaits. Within a process,
// exclusive transactions on one file therefore queue here; across processes SQLite's lock orders them.
const inProcessQueues = new Map<string, Promise<void>>();

function queueInProcess(key: string, run: () => Promise<void>): Promise<void> {
  const result = (inProcessQueues.get(key) ?? Promise.resolve()).then(run);
  const settled = result.catch(() => {});
  inProcessQueues.set(key, settled);
  void settled.then(() => {
    if (inProcessQueues.get(key) === settled) inProcessQueues.delete(key);
  });
  return result;
}
