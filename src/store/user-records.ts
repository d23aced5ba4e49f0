/**
 * Users the service keeps itself (issue 34), next to the grants: what `svc users` writes and
 * the database user store (`src/users/`) reads on each sign-in.
 *
 * - The subject id is 128 random bits, base64url, made once and never changed (a renamed user
 *   keeps it). It is not reused: removed subjects are not remembered (no tombstone), but a new
 *   one is a fresh 128-bit draw, and the primary key refuses one that is in use.
 * - Usernames are unique without regard to case: `usernameKey` (Unicode NFKC, then lower case)
 *   is what the store compares and indexes; the username is kept as it was given, for display.
 * - `passwordHash` is the PHC scrypt string of `src/config/password-format.ts`; `undefined` for a
 *   user who has no password (one who will only sign in through an upstream provider).
 * - `upstreamIdentities`: (provider, subject) pairs linked to this user, unique across users.
 */

export interface UpstreamIdentity {
  /** The provider's name in the config. */
  readonly provider: string;
  readonly issuer: string;
  /** The upstream `sub`. */
  readonly subject: string;
  readonly linkedAt: number;
}

export type UserClaims = Readonly<Record<string, string | number | boolean>>;

export interface StoredUser {
  readonly subjectId: string;
  readonly username: string;
  readonly email: string | undefined;
  readonly emailVerified: boolean;
  /** Released into ID tokens and UserInfo by the identity resource that names each claim. */
  readonly claims: UserClaims;
  readonly disabled: boolean;
  readonly passwordHash: string | undefined;
  /** Epoch milliseconds throughout. */
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly lastSignInAt: number | undefined;
  readonly upstreamIdentities: readonly UpstreamIdentity[];
}

export type NewUser = Omit<StoredUser, 'updatedAt' | 'lastSignInAt' | 'upstreamIdentities'>;

export interface UserChanges {
  readonly username?: string;
  /** `null` clears it. */
  readonly email?: string | null;
  readonly emailVerified?: boolean;
  readonly claims?: UserClaims;
  readonly disabled?: boolean;
  /** `null` removes the password. */
  readonly passwordHash?: string | null;
}

export interface UserRecordStore {
  /** Every user, by username key. */
  list(): Promise<StoredUser[]>;
  getBySubject(subjectId: string): Promise<StoredUser | undefined>;
  /** Compared by `usernameKey`: `Alice` finds `alice`. */
  getByUsername(username: string): Promise<StoredUser | undefined>;
  /** Rejects with `DuplicateKeyError` when the subject id or the username (by key) is taken. */
  add(user: NewUser): Promise<void>;
  /** Returns whether the user exists; rejects with `DuplicateKeyError` when a new username is taken. */
  update(subjectId: string, changes: UserChanges, now: number): Promise<boolean>;
  /**
   * A successful sign-in: sets `lastSignInAt`, and when `rehash` is given replaces the password
   * hash only if it is still `rehash.from` (a password set meanwhile wins).
   */
  signedIn(subjectId: string, now: number, rehash?: { readonly from: string; readonly to: string }): Promise<void>;
  /** Removes the user and their linked identities; returns whether it existed. */
  remove(subjectId: string): Promise<boolean>;
  /** Rejects with `DuplicateKeyError` when (provider, subject) is linked to anyone; false when the user is gone. */
  link(subjectId: string, identity: UpstreamIdentity): Promise<boolean>;
  /** Unlinks the provider's identities (or only `subject`'s) from the user; returns how many. */
  unlink(subjectId: string, provider: string, subject?: string): Promise<number>;
  findByUpstream(provider: string, subject: string): Promise<StoredUser | undefined>;
}

/** What usernames are compared by: `İ`/`i̇`, `Ａ`/`a` and `Alice`/`alice` are one name. */
export function usernameKey(username: string): string {
  return username.normalize('NFKC').toLowerCase();
}
