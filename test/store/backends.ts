/**
 * The three backends the contract suite runs against, each able to create a fresh, empty
 * database and to open several stores on it (as several nodes would).
 */
import { postgresSkipReason, postgresUrl } from '../support/pg.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { createMemoryStore } from '../../src/store/memory-store.js';
import { openPostgres } from '../../src/store/sql/postgres.js';
import { openSqlite } from '../../src/store/sql/sqlite.js';
import type { Store } from '../../src/store/store.js';

export const T0 = 1_700_000_000_000;

export interface TestDatabase {
  /** A store on this database; each call is a separate instance (connection, pool) where the backend has them. */
  open(): Store;
  /** Every row of the grants table read around the store, or `undefined` where there is no table. */
  rawGrantRows(): Promise<Record<string, unknown>[] | undefined>;
  /** Rows in the migrations table, or `undefined` where there is none. */
  appliedMigrations(): Promise<number | undefined>;
  drop(): Promise<void>;
}

export interface Backend {
  name: string;
  /** Set when the backend cannot run here; the suite is skipped with this message. */
  skipReason: string | undefined;
  createDatabase(): Promise<TestDatabase>;
}

const memory: Backend = {
  name: 'memory',
  skipReason: undefined,
  async createDatabase() {
    const store = createMemoryStore({ now: () => T0 });
    return {
      open: () => store,
      rawGrantRows: async () => undefined,
      appliedMigrations: async () => undefined,
      drop: async () => {},
    };
  },
};

const sqlite: Backend = {
  name: 'sqlite',
  skipReason: undefined,
  async createDatabase() {
    const dir = mkdtempSync(join(tmpdir(), 'svc-store-'));
    const path = join(dir, 'nested', 'svc.db');
    const opened: Store[] = [];
    const readRaw = <T>(query: string): T => {
      const raw = new BetterSqlite3(path, { readonly: true });
      try {
        return raw.prepare(query).all() as T;
      } finally {
        raw.close();
      }
    };
    return {
      open() {
        const store = openSqlite(path);
        opened.push(store);
        return store;
      },
      rawGrantRows: async () => readRaw('select * from persisted_grants'),
      appliedMigrations: async () => readRaw<{ n: number }[]>('select count(*) as n from svc_schema_migrations')[0]!.n,
      async drop() {
        await Promise.all(opened.map((store) => store.close()));
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
};


const runId = randomBytes(4).toString('hex');
let schemaCount = 0;

const postgres: Backend = {
  name: 'postgres',
  skipReason: await postgresSkipReason('PostgreSQL store tests'),
  async createDatabase() {
    const schema = `svc_test_${runId}_${++schemaCount}`;
    const admin = new pg.Client({ connectionString: postgresUrl, connectionTimeoutMillis: 3000 });
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    const opened: Store[] = [];
    return {
      open() {
        const store = openPostgres(postgresUrl, { schema, maxConnections: 5 });
        opened.push(store);
        return store;
      },
      rawGrantRows: async () => (await admin.query(`select * from ${schema}.persisted_grants`)).rows,
      appliedMigrations: async () =>
        Number((await admin.query(`select count(*) as n from ${schema}.svc_schema_migrations`)).rows[0].n),
      async drop() {
        await Promise.all(opened.map((store) => store.close()));
        await admin.query(`drop schema ${schema} cascade`);
        await admin.end();
      },
    };
  },
};

export const backends: readonly Backend[] = [memory, sqlite, postgres];
