/**
 * Contract steps (expand/contract, docs/guides/operations.md "Upgrades"): what a release starts
 * writing only once no node of the previous release is left, because that release cannot read
 * it. Unlike a migration a contract step changes no table: it is a row in
 * `svc_schema_migrations` that `svc migrate contract` records (never a node's start-up, which
 * cannot know whether old nodes still run) and that nodes read to choose what they write. A new
 * database gets every one at once: no older node has used it. Append only.
 */
export interface Contract {
  /** Recorded in `svc_schema_migrations` beside the migrations; never rename a shipped one. */
  readonly id: string;
  /** What the nodes write once it is recorded, for `svc migrate contract`'s output. */
  readonly effect: string;
}

/** Issue 40: time-ordered grant-family ids (src/oauth/grant-family.ts). */
export const timeOrderedFamiliesContract: Contract = {
  id: 'contract-1-time-ordered-grant-families',
  effect: 'grant-family ids and refresh family keys in time order',
};

/**
 * Issue 39: a code issued in a sign-in session is a row of its own (src/sessions/sign-in-sessions.ts),
 * no longer an entry in the session's record, which the previous release reads at sign-out.
 */
export const sessionCodeRowsContract: Contract = {
  id: 'contract-2-sign-in-session-code-rows',
  effect: 'codes issued in a sign-in session are rows of their own, not entries in the session record',
};

export const contracts: readonly Contract[] = [timeOrderedFamiliesContract, sessionCodeRowsContract];
