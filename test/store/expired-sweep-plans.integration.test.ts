/**
 * The sweep's statements go through the expiry indexes on both databases (migrations 0001 and
 * 0003 created them): a batch reads only the rows it deletes, never the live ones, however big
 * the table. And the shared counters (`counters: "store"`) are swept the same way: in bounded
 * batches, the live counters left alone.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import pg from 'pg';
import { openPostgres } from '../../src/store/sql/postgres.js';
import { openSqlite } from '../../src/store/sql/sqlite.js';
import { openPostgresCounters } from '../../src/throttling/postgres-counters.js';
import { createTestSchema, postgresSkipReason, postgresUrl, type TestSchema } from '../support/pg.js';

const T0 = 1_700_000_000_000;
// The texts the store and the counters send (sql-store.ts `removeExpired`, `countExpired`; postgres-counters.ts `sweep`).
const sweepGrants = `delete from persisted_grants where key in (select key from persisted_grants where expires_at < ${T0} order by expires_at limit 500)`;
const countGrants = `select type, count(*) as n from persisted_grants where expires_at < ${T0} group by type`;
const sweepCounters = `delete from rate_counters where key in (select key from rate_counters where expires_at < ${T0} order by expires_at limit 500)`;

describe('the sweep statements on SQLite', () => {
  let dir: string;
  let raw: BetterSqlite3.Database;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-sweep-plans-'));
    const store = openSqlite(join(dir, 'svc.db'));
    await store.migrate();
    await store.close();
    raw = new BetterSqlite3(join(dir, 'svc.db'), { readonly: true });
  });
  afterAll(() => {
    raw.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const plan = (sql: string): string =>
    raw.prepare(`explain query plan ${sql}`).all().map((row) => (row as { detail: string }).detail).join('\n');

  it('find expired rows through the expiry indexes', () => {
    expect(plan(sweepGrants)).toContain('USING INDEX persisted_grants_expires_at (expires_at<?)');
    expect(plan(countGrants)).toContain('USING INDEX persisted_grants_expires_at (expires_at<?)');
    expect(plan(sweepCounters)).toContain('USING INDEX rate_counters_expires_at (expires_at<?)');
  });
});

const skip = await postgresSkipReason('PostgreSQL sweep tests');

describe.skipIf(skip)('the sweep statements on PostgreSQL', () => {
  let schema: TestSchema;
  beforeAll(async () => {
    schema = await createTestSchema('sweep_plans');
    const store = openPostgres(postgresUrl, { schema: schema.name });
    await store.migrate();
    await store.close();
  });
  afterAll(() => schema.drop());

  // With sequential scans priced out, the plan shows whether an index can serve the query at all.
  const plan = async (sql: string): Promise<string> => {
    await schema.query('begin');
    try {
      await schema.query('set local enable_seqscan = off');
      const rows = await schema.query<{ 'QUERY PLAN': string }>(`explain ${sql}`);
      return rows.map((row) => row['QUERY PLAN']).join('\n');
    } finally {
      await schema.query('rollback');
    }
  };
  const usesIndex = (name: string) => new RegExp(`Index (Only )?Scan using ${name}|Bitmap Index Scan on ${name}`);

  it('find expired rows through the expiry indexes', async () => {
    expect(await plan(sweepGrants)).toMatch(usesIndex('persisted_grants_expires_at'));
    expect(await plan(countGrants)).toMatch(usesIndex('persisted_grants_expires_at'));
    expect(await plan(sweepCounters)).toMatch(usesIndex('rate_counters_expires_at'));
  });

  it('sweeps the shared counters in bounded batches, keeping the live ones', async () => {
    await schema.query(
      `insert into rate_counters (key, failures, threshold, last_at, blocked_until, expires_at)
       select 'gone:' || i, 1, 5, $1::bigint, 0, $1::bigint - i from generate_series(1, 2500) as i`,
      [T0],
    );
    await schema.query(
      `insert into rate_counters (key, failures, threshold, last_at, blocked_until, expires_at)
       select 'live:' || i, 1, 5, $1::bigint, 0, $1::bigint + i from generate_series(0, 199) as i`,
      [T0],
    );
    const counters = openPostgresCounters(schema.url);
    const sent = vi.spyOn(pg.Pool.prototype, 'query');
    try {
      expect(await counters.sweep!(T0, 300)).toBe(2500);
      // One delete per batch: 2500 rows in batches of 300 are 8 full ones and a short one.
      const sweeps = sent.mock.calls.filter(([text]) => /^\s*DELETE FROM rate_counters/i.test(String(text)));
      expect(sweeps).toHaveLength(9);
      expect(sweeps.every(([, values]) => (values as unknown[])[1] === 300)).toBe(true);
    } finally {
      sent.mockRestore();
      await counters.close();
    }
    const left = await schema.query<{ key: string }>('select key from rate_counters order by key');
    expect(left.map((r) => r.key)).toEqual(Array.from({ length: 200 }, (_, i) => `live:${i}`).sort());
  });
});
