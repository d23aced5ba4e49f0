import type { ColumnType } from 'kysely';

// pg returns BIGINT as a string (it may exceed 2^53); better-sqlite3 returns a number.
type Millis = ColumnType<number | string, number, number>;
type NullableMillis = ColumnType<number | string | null, number | null, number | null>;

export interface PersistedGrantsTable {
  /** `hashKey(handle)`, never the handle. */
  key: string;
  type: string;
  client_id: string;
  subject_id: string | null;
  session_id: string | null;
  created_at: Millis;
  expires_at: Millis;
  consumed_at: NullableMillis;
  data: string;
}

export interface SigningKeysTable {
  kid: string;
  alg: string;
  private_jwk: string;
  created_at: Millis;
  activates_at: Millis;
  retires_at: NullableMillis;
}

export interface SchemaMigrationsTable {
  id: string;
  applied_at: Millis;
}

export interface ClientRecordsTable {
  kind: string;
  id: string;
  /** JSON text: the config entry's fields but the id and the secrets. */
  definition: string;
  disabled: number;
  created_at: Millis;
  updated_at: Millis;
  last_used_at: NullableMillis;
}

export interface ClientSecretsTable {
  kind: string;
  owner_id: string;
  id: string;
  type: string;
  /** A hash for shared secrets; never the secret. */
  value: string;
  description: string | null;
  created_at: Millis;
  expires_at: NullableMillis;
}

export interface ClientRecordsVersionTable {
  id: number;
  version: ColumnType<number | string, number, number>;
}

export interface UsersTable {
  subject_id: string;
  username: string;
  /** `usernameKey(username)`: what the unique index compares. */
  username_key: string;
  email: string | null;
  email_verified: number;
  /** JSON text: claim name to value. */
  claims: string;
  disabled: number;
  /** PHC scrypt string; never a password. */
  password_hash: string | null;
  created_at: Millis;
  updated_at: Millis;
  last_sign_in_at: NullableMillis;
}

export interface UserIdentitiesTable {
  provider: string;
  subject: string;
  issuer: string;
  user_subject_id: string;
  linked_at: Millis;
}

/** Second factors (issue 35; `second-factor-records.ts`): `id` is "totp" or a recovery code's hash. */
export interface UserSecondFactorsTable {
  subject_id: string;
  id: string;
  kind: string;
  /** A sealed TOTP secret or a recovery code's hash; never a plain secret when a key-encryption key is set. */
  secret: string;
  created_at: Millis;
  confirmed_at: NullableMillis;
  last_step: NullableMillis;
  used_at: NullableMillis;
}

/** The back-channel logout queue (`logout-deliveries.ts`); never a token. */
export interface LogoutDeliveriesTable {
  id: string;
  client_id: string;
  subject: string;
  sid: string;
  request_id: string | null;
  attempts: ColumnType<number | string, number, number>;
  /** The current holder's random proof of its lease; null between attempts. */
  claim: string | null;
  due_at: Millis;
  created_at: Millis;
  expires_at: Millis;
}

export interface Database {
  logout_deliveries: LogoutDeliveriesTable;
  users: UsersTable;
  user_second_factors: UserSecondFactorsTable;
  user_identities: UserIdentitiesTable;
  client_records: ClientRecordsTable;
  client_secrets: ClientSecretsTable;
  client_records_version: ClientRecordsVersionTable;
  persisted_grants: PersistedGrantsTable;
  signing_keys: SigningKeysTable;
  svc_schema_migrations: SchemaMigrationsTable;
}
