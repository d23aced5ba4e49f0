/**
 * The store's statements are prepared once per PostgreSQL connection and then run thousands of
 * times. PostgreSQL soon caches one generic plan for each, costed on the table as it was then; on
 * a table of a few rows, a sequential scan, kept until an ANALYZE that never comes where
 * autovacuum is off, so reads by key slowed down as the table grew (issue 40: a refresh row fell
 * from 3,400 to 1,300 requests a second in 30 s). The store's connections plan each execution
 * (`postgresPool`), so the primary key's index is used once the table is large.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { openPostgres, postgresPool } from '../../src/store/sql/postgres.js';
import { createTestSchema, postgresSkipReason, postgresUrl, type TestSchema } from '../support/pg.js';

const skip = await postgresSkipReason('PostgreSQL plan tests');

const readByKeys = { name: 'probe_read_by_keys', text: 'select key, data from persisted_grants where key = any($1::text[])' };
const rows = (from: number, to: number): string =>
  `insert into persisted_grants (key, type, client_id, subject_id, session_id, created_at, expires_at, consumed_at, data)
   select 'row-' || g, 'refresh_token', 'c', 's', 'f', 0, 9999999999999, null, '{}' from generate_series(${from}, ${to}) g`;

describe.skipIf(skip)('statement plans as the grants table grows', () => {
  let schema: TestSchema;
  const pools: pg.Pool[] = [];

  beforeAll(async () => {
    schema = await createTestSchema('plans');
    const store = openPostgres(postgresUrl, { schema: schema.name });
    await store.migrate();
    await store.close();
  });
  afterAll(async () => {
    await Promise.all(pools.map((pool) => pool.end()));
    await schema?.drop();
  });

  it('reads by key through the primary key once the table grew from a few rows', async () => {
    // One connection, so EXPLAIN EXECUTE runs where the statement was prepared.
    const service = postgresPool(postgresUrl, { schema: schema.name, maxConnections: 1 });
    pools.push(service);
    await schema.query(rows(1, 20));
    // More executions than the five after which PostgreSQL may settle on a generic plan, each
    // with the keys of a turn's requests, as the service's grouped reads send them. (Whether it
    // does depends on the estimated costs and on cache invalidations from other sessions, so a
    // pool without the setting scans here only some of the time.)
    const keys = Array.from({ length: 64 }, (_, i) => `row-${i}`);
    for (let i = 0; i < 10; i++) await service.query({ ...readByKeys, values: [keys] });
    await schema.query(rows(21, 30_000));

    const plan = (await service.query<{ 'QUERY PLAN': string }>(`explain execute ${readByKeys.name}('{row-7}')`)).rows.map((row) => row['QUERY PLAN']).join('\n');
    expect(plan).toContain('persisted_grants_pkey');
    expect(plan).not.toContain('Seq Scan');
  });

  it('plans every execution on each of its connections', async () => {
    const service = postgresPool(postgresUrl, { schema: schema.name, maxConnections: 3 });
    pools.push(service);
    const settings = await Promise.all(Array.from({ length: 3 }, () => service.query<{ plan_cache_mode: string }>('show plan_cache_mode')));
    expect(settings.map((result) => result.rows[0]?.plan_cache_mode)).toEqual(['force_custom_plan', 'force_custom_plan', 'force_custom_plan']);
  });
});
