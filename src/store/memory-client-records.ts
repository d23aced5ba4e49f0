/** `ClientRecordStore` in process memory: the same semantics as the SQL one, for tests and `store: "memory"`. */
import { DuplicateKeyError } from './store.js';
import type { ClientRecordStore, RecordKind, StoredRecord } from './client-records.js';

export function createMemoryClientRecords(): ClientRecordStore {
  const records = new Map<string, StoredRecord>();
  let version = 0;
  const keyOf = (kind: RecordKind, id: string): string => `${kind}\u0000${id}`;
  // Copies in and out, so a caller's later edits never reach the store, as with a database.
  const copy = (r: StoredRecord): StoredRecord => structuredClone(r);
  function change(kind: RecordKind, id: string, edit: (r: StoredRecord) => StoredRecord | undefined): boolean {
    const current = records.get(keyOf(kind, id));
    if (!current) return false;
    const next = edit(current);
    if (!next) return false;
    records.set(keyOf(kind, id), next);
    version++;
    return true;
  }
  const sorted = (list: StoredRecord[]): StoredRecord[] =>
    list.sort((a, b) => (a.kind === b.kind ? (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) : a.kind < b.kind ? -1 : 1));

  return {
    async version() {
      return version;
    },
    async list(kind) {
      return sorted([...records.values()].filter((r) => kind === undefined || r.kind === kind).map(copy));
    },
    async get(kind, id) {
      const r = records.get(keyOf(kind, id));
      return r && copy(r);
    },
    async add(record) {
      const key = keyOf(record.kind, record.id);
      if (records.has(key)) throw new DuplicateKeyError();
      const ids = new Set(record.secrets.map((s) => s.id));
      if (ids.size !== record.secrets.length) throw new DuplicateKeyError();
      records.set(key, copy({ ...record, updatedAt: record.createdAt, lastUsedAt: undefined }));
      version++;
    },
    async update(kind, id, changes, now) {
      return change(kind, id, (r) => ({
        ...r,
        updatedAt: now,
        ...(changes.definition === undefined ? {} : { definition: structuredClone(changes.definition) }),
        ...(changes.disabled === undefined ? {} : { disabled: changes.disabled }),
      }));
    },
    async remove(kind, id) {
      const removed = records.delete(keyOf(kind, id));
      if (removed) version++;
      return removed;
    },
    async addSecret(kind, id, secret) {
      const r = records.get(keyOf(kind, id));
      if (r?.secrets.some((s) => s.id === secret.id)) throw new DuplicateKeyError();
      return change(kind, id, (r) => ({ ...r, secrets: [...r.secrets, { ...secret }] }));
    },
    async expireSecret(kind, id, secretId, expiresAt) {
      return change(kind, id, (r) =>
        r.secrets.some((s) => s.id === secretId) ? { ...r, secrets: r.secrets.map((s) => (s.id === secretId ? { ...s, expiresAt } : s)) } : undefined,
      );
    },
    async removeSecret(kind, id, secretId) {
      return change(kind, id, (r) =>
        r.secrets.some((s) => s.id === secretId) ? { ...r, secrets: r.secrets.filter((s) => s.id !== secretId) } : undefined,
      );
    },
    async touch(kind, id, now) {
      const r = records.get(keyOf(kind, id));
      if (r) records.set(keyOf(kind, id), { ...r, lastUsedAt: now });
    },
  };
}
