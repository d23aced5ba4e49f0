/**
 * `ClientRecordStore` over SQL, for SQLite and PostgreSQL alike. Not on the request path: nodes
 * read every record when the version moves, the CLI writes one at a time. A change is written
 * first and the version moved after it, so a node that sees the new version also sees the change.
 */
import { sql, type Kysely, type Selectable } from 'kysely';
import { DuplicateKeyError } from '../store.js';
import type { ClientRecordStore, RecordKind, StoredRecord, StoredSecret } from '../client-records.js';
import { isUniqueViolation } from './connectivity-error.js';
import type { ClientRecordsTable, ClientSecretsTable, Database } from './schema.js';

const optionalMillis = (v: number | string | null): number | undefined => (v === null ? undefined : Number(v));

function toSecret(row: Selectable<ClientSecretsTable>): StoredSecret {
  return {
    id: row.id,
    type: row.type,
    value: row.value,
    description: row.description ?? undefined,
    createdAt: Number(row.created_at),
    expiresAt: optionalMillis(row.expires_at),
  };
}

function toRecord(row: Selectable<ClientRecordsTable>, secrets: readonly StoredSecret[]): StoredRecord {
  return {
    kind: row.kind as RecordKind,
    id: row.id,
    definition: JSON.parse(row.definition) as Record<string, unknown>,
    disabled: row.disabled !== 0,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    lastUsedAt: optionalMillis(row.last_used_at),
    secrets,
  };
}

export function createSqlClientRecords(db: Kysely<Database>, guard: <T>(operation: string, run: () => Promise<T>) => Promise<T>): ClientRecordStore {
  const bump = () => db.updateTable('client_records_version').set({ version: sql`version + 1` }).where('id', '=', 1).execute();
  const changed = (result: { numUpdatedRows?: bigint; numDeletedRows?: bigint }): boolean =>
    Number(result.numUpdatedRows ?? result.numDeletedRows ?? 0) > 0;

  async function read(kind: RecordKind | undefined, id?: string): Promise<StoredRecord[]> {
    let records = db.selectFrom('client_records').selectAll().orderBy('kind').orderBy('id');
    let secrets = db.selectFrom('client_secrets').selectAll().orderBy('created_at').orderBy('id');
    if (kind !== undefined) {
      records = records.where('kind', '=', kind);
      secrets = secrets.where('kind', '=', kind);
    }
    if (id !== undefined) {
      records = records.where('id', '=', id);
      secrets = secrets.where('owner_id', '=', id);
    }
    const [rows, secretRows] = await Promise.all([records.execute(), secrets.execute()]);
    const byOwner = new Map<string, StoredSecret[]>();
    for (const s of secretRows) {
      const key = `${s.kind}\u0000${s.owner_id}`;
      byOwner.set(key, [...(byOwner.get(key) ?? []), toSecret(s)]);
    }
    return rows.map((r) => toRecord(r, byOwner.get(`${r.kind}\u0000${r.id}`) ?? []));
  }

  const exists = async (kind: RecordKind, id: string): Promise<boolean> =>
    (await db.selectFrom('client_records').select('id').where('kind', '=', kind).where('id', '=', id).executeTakeFirst()) !== undefined;

  return {
    version: () =>
      guard('clientRecords.version', async () => {
        const row = await db.selectFrom('client_records_version').select('version').where('id', '=', 1).executeTakeFirst();
        return Number(row?.version ?? 0);
      }),
    list: (kind) => guard('clientRecords.list', () => read(kind)),
    get: (kind, id) => guard('clientRecords.get', async () => (await read(kind, id))[0]),
    add: (record) =>
      guard('clientRecords.add', async () => {
        try {
          await db
            .insertInto('client_records')
            .values({
              kind: record.kind,
              id: record.id,
              definition: JSON.stringify(record.definition),
              disabled: record.disabled ? 1 : 0,
              created_at: record.createdAt,
              updated_at: record.createdAt,
              last_used_at: null,
            })
            .execute();
        } catch (error) {
          if (isUniqueViolation(error)) throw new DuplicateKeyError();
          throw error;
        }
        // Left-over secrets of a removed record with the same id would otherwise come back with it.
        await db.deleteFrom('client_secrets').where('kind', '=', record.kind).where('owner_id', '=', record.id).execute();
        for (const s of record.secrets) await insertSecret(record.kind, record.id, s);
        await bump();
      }),
    update: (kind, id, changes, now) =>
      guard('clientRecords.update', async () => {
        const result = await db
          .updateTable('client_records')
          .set({
            updated_at: now,
            ...(changes.definition === undefined ? {} : { definition: JSON.stringify(changes.definition) }),
            ...(changes.disabled === undefined ? {} : { disabled: changes.disabled ? 1 : 0 }),
          })
          .where('kind', '=', kind)
          .where('id', '=', id)
          .executeTakeFirst();
        if (!changed(result)) return false;
        await bump();
        return true;
      }),
    remove: (kind, id) =>
      guard('clientRecords.remove', async () => {
        const result = await db.deleteFrom('client_records').where('kind', '=', kind).where('id', '=', id).executeTakeFirst();
        await db.deleteFrom('client_secrets').where('kind', '=', kind).where('owner_id', '=', id).execute();
        if (!changed(result)) return false;
        await bump();
        return true;
      }),
    addSecret: (kind, id, secret) =>
      guard('clientRecords.addSecret', async () => {
        if (!(await exists(kind, id))) return false;
        await insertSecret(kind, id, secret);
        await bump();
        return true;
      }),
    expireSecret: (kind, id, secretId, expiresAt) =>
      guard('clientRecords.expireSecret', async () => {
        const result = await db
          .updateTable('client_secrets')
          .set({ expires_at: expiresAt ?? null })
          .where('kind', '=', kind)
          .where('owner_id', '=', id)
          .where('id', '=', secretId)
          .executeTakeFirst();
        if (!changed(result)) return false;
        await bump();
        return true;
      }),
    removeSecret: (kind, id, secretId) =>
      guard('clientRecords.removeSecret', async () => {
        const result = await db
          .deleteFrom('client_secrets')
          .where('kind', '=', kind)
          .where('owner_id', '=', id)
          .where('id', '=', secretId)
          .executeTakeFirst();
        if (!changed(result)) return false;
        await bump();
        return true;
      }),
    touch: (kind, id, now) =>
      guard('clientRecords.touch', async () => {
        await db.updateTable('client_records').set({ last_used_at: now }).where('kind', '=', kind).where('id', '=', id).execute();
      }),
  };

  async function insertSecret(kind: RecordKind, id: string, s: StoredSecret): Promise<void> {
    try {
      await db
        .insertInto('client_secrets')
        .values({
          kind,
          owner_id: id,
          id: s.id,
          type: s.type,
          value: s.value,
          description: s.description ?? null,
          created_at: s.createdAt,
          expires_at: s.expiresAt ?? null,
        })
        .execute();
    } catch (error) {
      if (isUniqueViolation(error)) throw new DuplicateKeyError();
      throw error;
    }
  }
}
