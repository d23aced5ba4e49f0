/**
 * Second factors of the users the service keeps (issue 35), beside `user-records.ts`:
 *
 * - One TOTP secret per user (RFC 6238), `secret` sealed with the key-encryption keys
 *   (`KeyProtector.sealSecret`), never plain when one is configured. It is pending until the
 *   person confirms it with a code (`confirmedAt`); a new enrolment replaces a pending or an
 *   active one. `lastStep` is the last time step a code was accepted for: a code of that step or
 *   an earlier one is refused (RFC 6238 §5.2, "the verifier MUST NOT accept the second attempt").
 * - Ten recovery codes, each a SHA-256 hash (the codes are 80 random bits, so a fast hash is
 *   enough: there is nothing to guess from it), spent once (`usedAt`).
 *
 * Every write that spends something is one conditional statement, so two nodes accepting the
 * same code at the same moment cannot both succeed.
 */

export interface TotpRecord {
  readonly secret: string;
  readonly createdAt: number;
  readonly confirmedAt: number | undefined;
  readonly lastStep: number | undefined;
}

export interface RecoveryCodeRecord {
  readonly hash: string;
  readonly createdAt: number;
  readonly usedAt: number | undefined;
}

/**
 * A passkey (WebAuthn): its credential id, COSE public key (base64url; public, so not sealed),
 * transports and name as the person gave it, and the authenticator's signature counter
 * (WebAuthn §6.1.1), which only grows for an authenticator that keeps one.
 */
export interface PasskeyRecord {
  readonly credentialId: string;
  readonly publicKey: string;
  readonly transports: readonly string[];
  readonly name: string;
  /** Synced to other devices (WebAuthn backup state): a software key rather than one device's hardware. */
  readonly backedUp: boolean;
  readonly counter: number;
  readonly createdAt: number;
  readonly lastUsedAt: number | undefined;
}

export interface SecondFactors {
  readonly totp: TotpRecord | undefined;
  readonly recoveryCodes: readonly RecoveryCodeRecord[];
  readonly passkeys: readonly PasskeyRecord[];
}

export type FactorKind = 'totp' | 'recovery' | 'passkey';

export interface SecondFactorStore {
  get(subjectId: string): Promise<SecondFactors>;
  /** A new pending TOTP secret (sealed), in place of any the user had. */
  putTotp(subjectId: string, sealedSecret: string, now: number): Promise<void>;
  /**
   * Accepts a code of `step` once: sets `lastStep` (and `confirmedAt` when `confirm`) only if the
   * record is still the one with `sealedSecret`, active (or pending, when confirming) and its
   * `lastStep` is below `step`. Returns whether it did.
   */
  acceptTotpStep(subjectId: string, sealedSecret: string, step: number, now: number, confirm: boolean): Promise<boolean>;
  /** Replaces every recovery code of the user. */
  putRecoveryCodes(subjectId: string, hashes: readonly string[], now: number): Promise<void>;
  /** Spends an unused code by its hash; returns whether it did. */
  spendRecoveryCode(subjectId: string, hash: string, now: number): Promise<boolean>;
  /** Rejects with `DuplicateKeyError` when the user has this credential already. */
  addPasskey(subjectId: string, passkey: Omit<PasskeyRecord, 'lastUsedAt'>): Promise<void>;
  /** A use of a passkey: sets its counter to `to` only if it is still `from`; returns whether it did. */
  usePasskey(subjectId: string, credentialId: string, from: number, to: number, now: number): Promise<boolean>;
  removePasskey(subjectId: string, credentialId: string): Promise<boolean>;
  /** A new name the person gave a passkey; returns whether the user has that passkey. */
  renamePasskey(subjectId: string, credentialId: string, name: string): Promise<boolean>;
  /** Every TOTP secret as stored, for `svc keys rewrap`. */
  listTotpSecrets(): Promise<Array<{ readonly subjectId: string; readonly secret: string }>>;
  /** Replaces a stored secret with the same secret sealed anew, only if it is still `from`; returns whether it did. */
  resealTotp(subjectId: string, from: string, to: string): Promise<boolean>;
  /** Removes the user's factors of `kind` (all without one); returns how many records went. */
  remove(subjectId: string, kind?: FactorKind): Promise<number>;
}
