/**
 * The PostgreSQL the benchmark's PostgreSQL rows use: `DATABASE_URL`, or the local server the
 * tests use, with three fresh schemas (the service's, the ceiling's, the store floor's) dropped at the end.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { postgresUrl } from '../support/pg.js';

export interface BenchPostgres {
  /** A `store` value landing in the service's schema (search_path in the URL). */
  readonly serviceUrl: string;
  /** The same for the ceiling server's own table. */
  readonly ceilingUrl: string;
  /** The same for the store floor's tables (test/bench/bare-koa-store.mjs), migrated as the service's. */
  readonly floorUrl: string;
  /** The process id of the benchmark's own connection (a backend of the server), to find the server's processes. */
  readonly backendPid: number;
  drop(): Promise<void>;
}

function inSchema(base: string, schema: string): string {
  const url = new URL(base);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return url.toString();
}

export async function openBenchPostgres(): Promise<BenchPostgres | { skipped: string }> {
  const admin = new pg.Client({ connectionString: postgresUrl, connectionTimeoutMillis: 3000 });
  try {
    await admin.connect();
  } catch (error) {
    return { skipped: `PostgreSQL at ${new URL(postgresUrl).host} is unreachable (${(error as Error).message || String(error)}); set DATABASE_URL` };
  }
  const run = randomBytes(4).toString('hex');
  const schemas = [`svc_bench_${run}`, `svc_bench_${run}_ceiling`, `svc_bench_${run}_floor`];
  for (const schema of schemas) await admin.query(`create schema ${schema}`);
  const { rows: [backend] } = await admin.query<{ pid: number }>('select pg_backend_pid() as pid');
  return {
    backendPid: backend!.pid,
    serviceUrl: inSchema(postgresUrl, schemas[0]!),
    ceilingUrl: inSchema(postgresUrl, schemas[1]!),
    floorUrl: inSchema(postgresUrl, schemas[2]!),
    async drop() {
      try {
        for (const schema of schemas) await admin.query(`drop schema if exists ${schema} cascade`);
      } finally {
        await admin.end();
      }
    },
  };
}
