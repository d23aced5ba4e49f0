import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgres } from '../../src/store/sql/postgres.js';
import { openSqlite } from '../../src/store/sql/sqlite.js';
import { createTestSchema, postgresSkipReason, postgresUrl, type TestSchema } from '../support/pg.js';

// The subject and session indexes hold only rows that have a subject or a session (migration
// 0002); the lookups by subject or session must still use them, on both databases.
const bySession = "delete from persisted_grants where session_id = 'family-1'";
const bySubject = "delete from persisted_grants where subject_id = 'alice' and client_id = 'web' and type = 'refresh_token'";
// The admin API's page of a client's grants (`listGrants` with `clientId`, migration 0008): the
// equalities lead the index and `key` follows, so the page is an ordered range, with no sort. The
// index holds two kinds only; the store's queries repeat its condition, as these do.
const listed = "type in ('refresh_family', 'sign_in_session_client')";
const byClient = `select key from persisted_grants where type = 'refresh_family' and expires_at > 0 and client_id = 'web' and ${listed} and key > 'k' order by key limit 51`;
const allOfAClient = `delete from persisted_grants where client_id = 'web' and type = 'refresh_family' and ${listed}`;

describe('grant indexes on SQLite', () => {
  let dir: string;
  let raw: BetterSqlite3.Database;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-indexes-'));
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
    raw
      .prepare(`explain query plan ${sql}`)
      .all()
      .map((row) => (row as { detail: string }).detail)
      .join('\n');
  const indexSql = (name: string): string =>
    (raw.prepare('select sql from sqlite_master where name = ?').get(name) as { sql: string }).sql;

  it('keeps only rows with a subject or a session in those indexes, and only the listed kinds in the client index', () => {
    expect(indexSql('persisted_grants_client_type_key')).toMatch(/where type in \('refresh_family', 'sign_in_session_client'\)$/i);
    expect(indexSql('persisted_grants_session_id')).toMatch(/where "session_id" is not null$/i);
    expect(indexSql('persisted_grants_subject_client_type')).toMatch(/where "subject_id" is not null$/i);
  });

  it('finds grants by session and by subject through them', () => {
    expect(plan(bySession)).toContain('USING INDEX persisted_grants_session_id (session_id=?)');
    expect(plan(bySubject)).toContain('USING INDEX persisted_grants_subject_client_type (subject_id=? AND client_id=? AND type=?)');
  });

  it('pages a client\'s grants through the client index, in key order without a sort', () => {
    expect(plan(byClient)).toBe('SEARCH persisted_grants USING INDEX persisted_grants_client_type_key (client_id=? AND type=? AND key>?)');
    expect(plan(allOfAClient)).toContain('USING INDEX persisted_grants_client_type_key (client_id=? AND type=?)');
  });
});

const skip = await postgresSkipReason('PostgreSQL index tests');

describe.skipIf(skip)('grant indexes on PostgreSQL', () => {
  let schema: TestSchema;
  beforeAll(async () => {
    schema = await createTestSchema('indexes');
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

  it('keeps only rows with a subject or a session in those indexes', async () => {
    const rows = await schema.query<{ indexname: string; indexdef: string }>(
      `select indexname, indexdef from pg_indexes where schemaname = $1 and tablename = 'persisted_grants'`,
      [schema.name],
    );
    const definition = new Map(rows.map((row) => [row.indexname, row.indexdef]));
    expect(definition.get('persisted_grants_session_id')).toMatch(/WHERE \(session_id IS NOT NULL\)$/);
    expect(definition.get('persisted_grants_client_type_key')).toMatch(/WHERE \(type = ANY \(ARRAY\['refresh_family'::text, 'sign_in_session_client'::text\]\)\)$/);
    expect(definition.get('persisted_grants_subject_client_type')).toMatch(/WHERE \(subject_id IS NOT NULL\)$/);
  });

  it('finds grants by session and by subject through them', async () => {
    expect(await plan(bySession)).toMatch(/Index (Only )?Scan using persisted_grants_session_id|Bitmap Index Scan on persisted_grants_session_id/);
    expect(await plan(bySubject)).toMatch(
      /Index (Only )?Scan using persisted_grants_subject_client_type|Bitmap Index Scan on persisted_grants_subject_client_type/,
    );
  });

  it('pages a client\'s grants through the client index, in key order without a sort', async () => {
    const paging = await plan(byClient);
    expect(paging).toMatch(/Index Scan using persisted_grants_client_type_key on persisted_grants/);
    expect(paging).toMatch(/Index Cond: \(\(client_id = 'web'::text\) AND \(type = 'refresh_family'::text\) AND \(key > 'k'::text\)\)/);
    expect(paging).not.toMatch(/Sort/);
    expect(await plan(allOfAClient)).toMatch(/Index (Only )?Scan using persisted_grants_client_type_key|Bitmap Index Scan on persisted_grants_client_type_key/);
  });
});
