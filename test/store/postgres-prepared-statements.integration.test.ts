/**
 * The store's statements are prepared once per PostgreSQL connection. A rolling upgrade whose
 * migration adds a column to persisted_grants must not break the nodes still running: a
 * prepared `select *` would fail there with "cached plan must not change result type".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgres } from '../../src/store/sql/postgres.js';
import type { PersistedGrant, Store } from '../../src/store/store.js';
import { createTestSchema, postgresSkipReason, postgresUrl, type TestSchema } from '../support/pg.js';

const skip = await postgresSkipReason('PostgreSQL prepared-statement tests');

const grant = (key: string): PersistedGrant => ({
  key, type: 'reference_token', clientId: 'c', subjectId: 's', sessionId: undefined,
  createdAt: Date.now(), expiresAt: Date.now() + 60_000, consumedAt: undefined, data: '{}',
});

describe.skipIf(skip)('prepared statements across a migration that adds a column', () => {
  let schema: TestSchema;
  let store: Store;

  beforeAll(async () => {
    schema = await createTestSchema('prepared');
    // One connection, so the statements prepared before the change are the ones used after it.
    store = openPostgres(postgresUrl, { schema: schema.name, maxConnections: 1 });
    await store.migrate();
  });
  afterAll(async () => {
    await store?.close();
    await schema?.drop();
  });

  it('keeps reading, consuming and adding on the connections of a node that predates the column', async () => {
    await store.add(grant('before'));
    expect((await store.get('before'))?.clientId).toBe('c');
    await store.add(grant('spend-later'));
    expect(await store.consume('before', Date.now())).toBeDefined();

    await schema.query('alter table persisted_grants add column added_by_a_newer_node text');

    expect((await store.get('spend-later'))?.clientId).toBe('c');
    expect((await store.consume('spend-later', Date.now()))?.clientId).toBe('c');
    await store.add(grant('after'));
    expect((await store.get('after'))?.type).toBe('reference_token');
  });
});
