/**
 * The store contract: everything the service persists. One generic record, the persisted
 * grant (IdentityServer's model), covers reference tokens, refresh tokens, device codes,
 * user codes, plugins' own records and leases (`lease.ts`); signing keys have their own small table.
 *
 * Handles are never stored: every `key` passed in is the caller's handle, and the store keeps
 * only its SHA-256 (see `hashKey`; the service's own handles keep their issuance-time prefix),
 * so a copy of the database yields no usable token or code.
 */

export type GrantType =
  | 'reference_token'
  | 'refresh_token'
  | 'device_code'
  | 'user_code'
  | 'assertion_jti'
  | (string & {});

import type { ClientRecordStore } from './client-records.js';
import type { UserRecordStore } from './user-records.js';
import type { SecondFactorStore } from './second-factor-records.js';
import type { LogoutDeliveryStore } from './logout-deliveries.js';

export interface PersistedGrant {
  /** The handle (plain on the way in; records read back carry the handle the caller asked with). */
  key: string;
  type: GrantType;
  clientId: string;
  subjectId: string | undefined;
  /** Groups grants that live and die together, e.g. a refresh token family. */
  sessionId: string | undefined;
  /** Epoch milliseconds. */
  createdAt: number;
  expiresAt: number;
  consumedAt: number | undefined;
  /** JSON text owned by the grant's kind. */
  data: string;
}

export interface SigningKeyRecord {
  kid: string;
  alg: string;
  /** Private JWK as JSON text. */
  privateJwk: string;
  createdAt: number;
  /** Not used to sign before this time (published first, Duende-style). */
  activatesAt: number;
  /** Dropped from the JWKS after this time; `undefined` until a successor is chosen. */
  retiresAt: number | undefined;
}

export type SigningKeyChanges = { retiresAt: number | undefined; privateJwk?: string } | { retiresAt?: never; privateJwk: string };

export interface GrantFilter {
  subjectId?: string;
  clientId?: string;
  sessionId?: string;
  type?: GrantType;
}

/** A page of `listGrants`: at most `limit` grants live at `now`, after the stored key `after`. */
export interface GrantPage {
  readonly now: number;
  readonly limit: number;
  readonly after?: string | undefined;
}

/**
 * Writes that succeed or fail together: the one-time grant a token request spends and the
 * grants it yields (issue 14). Nothing is written when the consume loses or any insert fails,
 * so a failed request leaves the spent grant usable for the client's retry.
 */
export interface WriteBatch {
  /** Consumed as by `consume`; when it is already consumed, expired or gone, nothing is written. */
  readonly consume?: { readonly key: string; readonly now: number };
  /** Inserted as by `add`; a live grant holding one of the keys fails the batch with `DuplicateKeyError`. */
  readonly add: readonly PersistedGrant[];
}

/** Which migrations the database has and which this release would still apply (`svc migrate status`). */
export interface MigrationStatus {
  /** Oldest first. `known: false` marks one a newer release applied (expand/contract: this release ignores what it added). */
  readonly applied: ReadonlyArray<{ readonly id: string; readonly appliedAt: number; readonly known: boolean }>;
  /** This release's migrations the database does not have yet, in the order `migrate` would apply them. */
  readonly pending: readonly string[];
  /** This release's contract steps (src/store/sql/contracts.ts), each with when it was recorded; `undefined`, not yet. */
  readonly contracts: ReadonlyArray<{ readonly id: string; readonly recordedAt: number | undefined }>;
}

export interface Store {
  /** Creates tables and runs pending migrations; idempotent and safe when nodes start together. */
  migrate(): Promise<void>;
  /** What `migrate` has applied and would apply, read without changing anything; SQL stores only (memory has no schema). */
  migrationStatus?(): Promise<MigrationStatus>;
  /**
   * Records every contract step not recorded yet (`svc migrate contract`), under the lock
   * `migrate` takes: from then on the nodes write what the previous release cannot read. SQL
   * stores only; a memory store is never shared with an older node.
   */
  contract?(): Promise<void>;

  /** Inserts a grant; rejects with `DuplicateKeyError` when a live grant holds the key. An expired one is replaced. */
  add(grant: PersistedGrant): Promise<void>;
  get(key: string): Promise<PersistedGrant | undefined>;
  /**
   * Marks the grant consumed if it is unconsumed and unexpired at `now`, atomically across
   * nodes; returns the record (with `consumedAt` set) only to the one caller that won.
   */
  consume(key: string, now: number): Promise<PersistedGrant | undefined>;
  /**
   * Runs the batch in one transaction; resolves `false` (having written nothing) when the
   * consume lost, `true` when everything was written. Rejects, having written nothing, when the
   * store fails.
   */
  commit(batch: WriteBatch): Promise<boolean>;
  /** Replaces `data` (and optionally `subjectId`) when the grant is still unconsumed; returns whether it did. */
  update(key: string, changes: { data: string; subjectId?: string; expectedData?: string }): Promise<boolean>;
  remove(key: string): Promise<void>;
  removeAll(filter: GrantFilter): Promise<number>;
  /**
   * The admin API's lists (issue 39): grants of one type that match the filter and are live at
   * `now`, ordered by their stored key, the page after `after`. Each record's `key` is its stored
   * form (the digest, see `hashKey`), never a usable handle.
   */
  listGrants(filter: GrantFilter & { type: GrantType }, page: GrantPage): Promise<PersistedGrant[]>;
  /** Removes the grant stored under `storedKey` (a key `listGrants` gave); returns whether there was one. */
  removeStored(storedKey: string): Promise<boolean>;
  /**
   * The unexpired grants `filter` matches (not empty), e.g. a user's sign-in sessions before
   * `svc users disable` ends them. Their `key` is the stored hash, not a usable handle.
   */
  findAll(filter: GrantFilter, now: number): Promise<PersistedGrant[]>;
  /**
   * Deletes up to `batchSize` grants whose `expiresAt` is before `now`; returns how many. On SQL,
   * one short statement over the expiry index, oldest first, so it never holds locks for long.
   */
  removeExpired(now: number, batchSize: number): Promise<number>;
  /** How many grants whose `expiresAt` is before `now` are still stored, by `type` (types with none are left out). */
  countExpired(now: number): Promise<Record<string, number>>;

  listSigningKeys(): Promise<SigningKeyRecord[]>;
  addSigningKey(key: SigningKeyRecord): Promise<void>;
  /** Sets what `changes` names: `retiresAt` (`undefined` clears it), or the stored `privateJwk` (re-encryption). */
  updateSigningKey(kid: string, changes: SigningKeyChanges): Promise<void>;
  removeSigningKey(kid: string): Promise<void>;

  /** Clients and API resources managed at run time (the CLI, registration); see `client-records.ts`. */
  readonly clientRecords: ClientRecordStore;

  /** Users the service keeps (`svc users`, issue 34); see `user-records.ts`. */
  readonly users: UserRecordStore;

  /** The second factors of those users (issue 35); see `second-factor-records.ts`. */
  readonly factors: SecondFactorStore;

  /** The back-channel logout queue (issue 37); see `logout-deliveries.ts`. */
  readonly logoutDeliveries: LogoutDeliveryStore;

  /** Cheap round trip for readiness checks. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export { DuplicateKeyError, isDuplicateKeyError, isStoreUnavailableError, StoreUnavailableError } from '../sdk/store-errors.js';
