/**
 * Clients and API resources kept in the database, next to the grants (issue 19): what the
 * operator CLI writes and the database client store reads. A record holds its definition in the
 * shape of an `svc.config.ts` entry (without the id and the secrets), so the config's own rules
 * validate it; secrets are separate rows, each only a hash, never the secret itself.
 *
 * Every change bumps one version number: each node polls it (one indexed row) and reloads only
 * when it moved, so a change made on one node reaches every node within the poll interval.
 * `touch` (last use) does not bump it.
 */

export type RecordKind = 'client' | 'apiResource';

export interface StoredSecret {
  /** Short random id the CLI shows, so a secret can be expired or removed without printing it. */
  readonly id: string;
  readonly type: string;
  /** The stored form: for `SharedSecret`, base64 of the SHA-256 digest. Never shown by the CLI. */
  readonly value: string;
  readonly description: string | undefined;
  /** Epoch milliseconds throughout. */
  readonly createdAt: number;
  readonly expiresAt: number | undefined;
}

export interface StoredRecord {
  readonly kind: RecordKind;
  /** The client id, or the API resource's name. */
  readonly id: string;
  /** The config entry's other fields, e.g. `{ allowedGrantTypes: [...], allowedScopes: [...] }`. */
  readonly definition: Readonly<Record<string, unknown>>;
  readonly disabled: boolean;
  readonly createdAt: number;
  readonly updatedAt: number;
  /** Written at most once a minute per record by the nodes that authenticate it. */
  readonly lastUsedAt: number | undefined;
  readonly secrets: readonly StoredSecret[];
}

export interface RecordChanges {
  readonly definition?: Readonly<Record<string, unknown>>;
  readonly disabled?: boolean;
}

export interface ClientRecordStore {
  /** Moves whenever a record or secret is added, changed or removed. */
  version(): Promise<number>;
  list(kind?: RecordKind): Promise<StoredRecord[]>;
  get(kind: RecordKind, id: string): Promise<StoredRecord | undefined>;
  /** Rejects with `DuplicateKeyError` when the id is taken. */
  add(record: Omit<StoredRecord, 'lastUsedAt' | 'updatedAt'>): Promise<void>;
  /** Returns whether the record exists. */
  update(kind: RecordKind, id: string, changes: RecordChanges, now: number): Promise<boolean>;
  remove(kind: RecordKind, id: string): Promise<boolean>;
  addSecret(kind: RecordKind, id: string, secret: StoredSecret): Promise<boolean>;
  /** Sets (or with `undefined` clears) a secret's expiry; returns whether the secret exists. */
  expireSecret(kind: RecordKind, id: string, secretId: string, expiresAt: number | undefined): Promise<boolean>;
  removeSecret(kind: RecordKind, id: string, secretId: string): Promise<boolean>;
  /** Records a use; does not move the version. */
  touch(kind: RecordKind, id: string, now: number): Promise<void>;
}
