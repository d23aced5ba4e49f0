/**
 * The back-channel logout queue (OpenID Connect Back-Channel Logout 1.0, issue 37): one row per
 * client to be told that a session ended, written before the browser's answer so the telling
 * survives the node that ended the session. Any node's worker claims due rows under a lease
 * (`claim`), so two nodes never post the same one at once, and a node that dies mid-delivery
 * leaves a lease that runs out for another node to take: at-least-once delivery.
 *
 * A row holds who and which session, never a logout token: the token is signed at each attempt.
 */

export interface LogoutDelivery {
  /** Random; the row's key. */
  readonly id: string;
  readonly clientId: string;
  /** The user of the ended session (`sub` of the logout token). */
  readonly subject: string;
  /** The ended session's public id (`sid`), as its ID tokens carried it. */
  readonly sid: string;
  /** The request that ended the session (its events carry it); none for the CLI. */
  readonly requestId?: string | undefined;
  /** Attempts claimed so far (a claim counts even when its node dies before posting). */
  readonly attempts: number;
  /** Epoch ms: not claimed before then (the next retry, or the end of the current lease). */
  readonly dueAt: number;
  readonly createdAt: number;
  /** Epoch ms: given up after then, however many attempts are left (no worker ran meanwhile). */
  readonly expiresAt: number;
}

/** A delivery this caller holds until `leaseUntil`; `claim` is its proof of holding it. */
export interface ClaimedDelivery extends LogoutDelivery {
  readonly claim: string;
  readonly leaseUntil: number;
}

export interface LogoutDeliveryStore {
  /** Writes new deliveries (`attempts` 0, due at once). */
  enqueue(deliveries: readonly Omit<LogoutDelivery, 'attempts'>[]): Promise<void>;
  /**
   * Takes up to `limit` deliveries due at `now`, oldest due first, each for `leaseMs`: its
   * `dueAt` moves to the lease's end and `attempts` grows by one, by a compare-and-set on the row,
   * so exactly one caller gets each.
   */
  claim(now: number, leaseMs: number, limit: number): Promise<ClaimedDelivery[]>;
  /** Delivered or given up: removes it, if `claim` still holds it; returns whether it did. */
  finish(id: string, claim: string): Promise<boolean>;
  /** Failed; the next attempt is due at `dueAt`, if `claim` still holds it; returns whether it did. */
  retryAt(id: string, claim: string, dueAt: number): Promise<boolean>;
  /** How many are waiting (delivered ones are gone); for tests and operators. */
  count(): Promise<number>;
}
