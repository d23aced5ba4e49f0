/**
 * The first-party client store: clients and API resources in the same database as the grants,
 * written by `svc clients` / `svc apis`. It speaks the same `ClientStore` contract a plugin's
 * store does; the host polls `version` (one indexed row) and reloads only when it moved.
 */
import type { ClientStore } from '../sdk/contracts.js';
import type { ClientRecordStore, StoredRecord, StoredSecret } from '../store/client-records.js';

const secretEntry = (s: StoredSecret): Record<string, unknown> => ({
  value: s.value,
  type: s.type,
  ...(s.description === undefined ? {} : { description: s.description }),
  ...(s.expiresAt === undefined ? {} : { expiration: new Date(s.expiresAt).toISOString() }),
});

/** A stored record as a config entry (plus `disabled`), for the config's rules to check. */
export function entryOf(record: StoredRecord): Record<string, unknown> {
  return record.kind === 'client'
    ? { ...record.definition, clientId: record.id, clientSecrets: record.secrets.map(secretEntry), disabled: record.disabled }
    : { ...record.definition, name: record.id, secrets: record.secrets.map(secretEntry), disabled: record.disabled };
}

export function databaseClientStore(records: ClientRecordStore): ClientStore {
  return {
    name: 'database',
    version: () => records.version(),
    async load() {
      const all = await records.list();
      return {
        clients: all.filter((r) => r.kind === 'client').map(entryOf),
        apiResources: all.filter((r) => r.kind === 'apiResource').map(entryOf),
      };
    },
    used: (kind, id, at) => records.touch(kind, id, at),
  };
}
