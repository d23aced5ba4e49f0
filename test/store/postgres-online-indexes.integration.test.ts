/**
 * Issue 39: an index a migration adds to a table that may be large is built online on
 * PostgreSQL (`create index concurrently`, before the migration's transaction and outside its
 * statement timeout), and a build that failed half-way is built again rather than left invalid.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgres } from '../../src/store/sql/postgres.js';
import type { Store } from '../../src/store/store.js';
import { createTestSchema, postgresSkipReason, postgresUrl, type TestSchema } from '../support/pg.js';

const skip = await postgresSkipReason('PostgreSQL online index tests');
const index = 'persisted_grants_client_type_key';

describe.skipIf(skip)('online index builds on PostgreSQL (migration 0008)', () => {
  let schema: TestSchema;
  let store: Store;
  beforeAll(async () => {
    schema = await createTestSchema('online_index');
    store = openPostgres(postgresUrl, { schema: schema.name });
    await store.migrate();
  });
  afterAll(async () => {
    await store.close();
    await schema.drop();
  });

  const indexState = async () =>
    (await schema.query<{ valid: boolean; definition: string }>(
      'select i.indisvalid as valid, pg_get_indexdef(i.indexrelid) as definition from pg_index i where i.indexrelid = to_regclass($1)',
      [`${schema.name}.${index}`],
    ))[0];
  const recorded = async () => (await schema.query('select id from svc_schema_migrations where id = $1', ['0008-grants-by-client-index'])).length;

  /** The database as the release before 0008 left it, with grants of several clients in it. */
  async function asBefore0008(): Promise<void> {
    await schema.query(`delete from svc_schema_migrations where id = '0008-grants-by-client-index'`);
    await schema.query(
      `insert into persisted_grants (key, type, client_id, subject_id, session_id, created_at, expires_at, consumed_at, data)
       select 'k' || g, case when g % 2 = 0 then 'refresh_family' else 'reference_token' end, 'client-' || (g % 7), 'alice', null, 0, 9999999999999, null, '{}'
       from generate_series(1, 2000) g on conflict do nothing`,
    );
  }

  it('builds the index of a pending migration before the migration runs, and records the migration', async () => {
    await schema.query(`drop index ${index}`);
    await asBefore0008();

    await store.migrate();

    expect(await indexState()).toMatchObject({ valid: true, definition: expect.stringMatching(/WHERE \(type = ANY \(ARRAY\['refresh_family'::text, 'sign_in_session_client'::text\]\)\)$/) });
    expect(await recorded()).toBe(1);
  });

  it('builds again an index a failed concurrent build left invalid, instead of keeping it', async () => {
    await asBefore0008();
    // What an interrupted `create index concurrently` leaves: the index, marked invalid.
    await schema.query('update pg_index set indisvalid = false where indexrelid = to_regclass($1)', [`${schema.name}.${index}`]);
    expect((await indexState())?.valid).toBe(false);

    await store.migrate();

    expect((await indexState())?.valid).toBe(true);
    expect(await recorded()).toBe(1);
  });
});
