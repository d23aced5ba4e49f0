/**
 * The PostgreSQL server that tests use: `DATABASE_URL`, or the local trust-auth server. Each
 * test file takes a fresh schema and drops it afterwards. Without a reachable server the
 * PostgreSQL tests are skipped with a visible message, except under CI (`CI=true`), where
 * they run and fail.
 *
 * @example
 * const skip = await postgresSkipReason();
 * describe.skipIf(skip)('on PostgreSQL', () => {
 *   let schema: TestSchema;
 *   beforeAll(async () => { schema = await createTestSchema('multi_node'); });
 *   afterAll(() => schema.drop());
 *   // schema.url carries the search_path; openPostgres(postgresUrl, { schema: schema.name }) works too.
 * });
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const postgresUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

let probed: Promise<string | undefined> | undefined;

/** Why the PostgreSQL tests cannot run here, or `undefined` when they can (or must, under CI). */
export function postgresSkipReason(what = 'PostgreSQL tests'): Promise<string | undefined> {
  probed ??= probe();
  return probed.then((reason) => {
    if (reason === undefined) return undefined;
    // Under CI a missing database must fail the run, not hide it.
    if (process.env.CI === 'true') return undefined;
    console.warn(`Skipping ${what}: ${reason}. Set DATABASE_URL to run them.`);
    return reason;
  });
}

async function probe(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: postgresUrl, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('select 1');
    return undefined;
  } catch (error) {
    return `PostgreSQL at ${new URL(postgresUrl).host} is unreachable (${(error as Error).message || String(error)})`;
  } finally {
    await client.end().catch(() => {});
  }
}

export interface TestSchema {
  /** The schema's name, for `openPostgres(postgresUrl, { schema })`. */
  readonly name: string;
  /** `postgresUrl` with `options=-c search_path=<name>`: a `store` value that lands in this schema. */
  readonly url: string;
  /** The same URL pointed at another host and port, e.g. a TCP proxy in front of the server. */
  urlVia(host: string, port: number): string;
  /** Runs SQL as an administrator (search_path set to the schema). */
  query<T extends pg.QueryResultRow = Record<string, unknown>>(text: string, values?: unknown[]): Promise<T[]>;
  /** Drops the schema and everything in it. */
  drop(): Promise<void>;
}

const runId = randomBytes(4).toString('hex');
let count = 0;

/** Creates an empty schema `svc_<label>_<run>_<n>`. */
export async function createTestSchema(label: string): Promise<TestSchema> {
  const name = `svc_${label.replace(/\W/g, '_')}_${runId}_${++count}`;
  const url = withSearchPath(postgresUrl, name);
  const admin = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  await admin.connect();
  await admin.query(`create schema ${name}`);
  let dropped: Promise<void> | undefined;
  return {
    name,
    url,
    urlVia(host, port) {
      const via = new URL(url);
      via.hostname = host;
      via.port = String(port);
      return via.toString();
    },
    async query<T extends pg.QueryResultRow>(text: string, values?: unknown[]) {
      return (await admin.query<T>(text, values)).rows;
    },
    drop: () =>
      (dropped ??= (async () => {
        try {
          await admin.query(`drop schema if exists ${name} cascade`);
        } finally {
          await admin.end();
        }
      })()),
  };
}

function withSearchPath(base: string, schema: string): string {
  const url = new URL(base);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return url.toString();
}
