/**
 * Grant families. Every token issued from one redemption (the access, refresh and ID tokens of
 * one token response, and every later rotation of that refresh token) carries one family id in
 * its `sessionId`, so revoking the family is one `removeAll({ sessionId })`: revoking a refresh
 * token ends the access tokens of its grant (RFC 7009 §2.1), and a one-time grant redeemed a
 * second time ends what its first redemption issued (RFC 6749 §4.1.2).
 *
 * Reference access tokens are removed with the family; JWT access tokens cannot be recalled and
 * live until `exp`.
 *
 * Two formats (issue 40). A time-ordered id starts with 12 hex digits of epoch milliseconds, so
 * the family record's primary-key entry and the `session_id` index entries of its tokens land
 * beside the last ones in the B-trees instead of on random pages (a code redemption's commit:
 * ~110 → ~74 µs of CPU, docs/guides/performance.md). The previous release writes and reads only
 * the plain format (a UUID, or the digest of a spent grant's handle) and cannot read the new one,
 * so a node writes time-ordered ids only once the database is contracted (`svc migrate
 * contract`, see src/store/watched-contracts.ts); it reads both formats always.
 */
import { hash, randomUUID } from 'node:crypto';
import type { GrantSuccess } from '../sdk/contracts.js';
import { newTokenId } from './handles.js';
import type { Store } from '../store/store.js';
import { timeOrderedHandle } from '../store/hash-key.js';
import { timeOrderedFamiliesContract } from '../store/sql/contracts.js';
import type { ContractState } from '../store/watched-contracts.js';

/**
 * Which format a node writes. Read on every issue, so a plain property: the value is fetched from
 * the database at start-up and on an interval, never per request.
 */
export interface FamilyFormat {
  readonly timeOrdered: boolean;
}

/**
 * A success of the host's own one-time grants: the family of the grant it `consumes`, as the
 * grant's record says (an authorization code's), so the tokens join the family the sign-in
 * session listed for sign-out and a second redemption revokes. Host-only: a plugin's success
 * gets the family derived from its handle.
 */
export interface SpendsFamily extends GrantSuccess {
  readonly consumesFamily?: string;
}

/** The format the database's contract steps allow (read per request: a set look-up). */
export function familyFormatOf(contracts: ContractState): FamilyFormat {
  return { get timeOrdered() { return contracts.recorded(timeOrderedFamiliesContract); } };
}

/** The memory store's (and every unit test's): no node of an older release can share it. */
export const timeOrderedFamilies: FamilyFormat = Object.freeze({ timeOrdered: true });

/**
 * The new format: 12 hex digits of time, then 22 (a new family: 128 random bits) or 43 (a spent
 * grant's digest) base64url characters. Neither length is an old one's (a UUID has 36, a digest
 * 43), so no old id is taken for a new one.
 */
const timeOrderedFamily = /^[0-9a-f]{12}(?:[\w-]{22}|[\w-]{43})$/;

export function isTimeOrderedFamily(familyId: string): boolean {
  return timeOrderedFamily.test(familyId);
}

function timePrefix(ms: number): string {
  return ms.toString(16).padStart(12, '0');
}

/** A family for tokens no one-time grant yields (a password grant's, a token exchange's). */
export function newFamilyId(timeOrdered: boolean, now: number = Date.now()): string {
  return timeOrdered ? timePrefix(now) + newTokenId() : randomUUID();
}

/**
 * The family of the tokens a one-time grant (a device code, an authorization code) yields,
 * derived from its handle: a second redemption finds the first one's tokens without a lookup.
 * A digest, as the family id is stored in plain. Time-ordered, it is the handle's own time
 * prefix in front of the same digest: the plain id is the time-ordered one without its first
 * 12 characters (`plainFamilyOf`).
 */
export function familyOfSpentGrant(handle: string, timeOrdered: boolean): string {
  const digest = hash('sha256', `svc-grant-family:${handle}`, 'base64url');
  return timeOrdered && timeOrderedHandle.test(handle) ? handle.slice(0, 12) + digest : digest;
}

/** The plain id within a time-ordered one (what the previous release computes for the same handle); none for a random one. */
function plainFamilyOf(familyId: string): string | undefined {
  return familyId.length === 55 && isTimeOrderedFamily(familyId) ? familyId.slice(12) : undefined;
}

/**
 * The key of the family's `refresh_family` record. The plain format's is the previous release's
 * exactly; a time-ordered id's keeps its time in front of the stored key (`timeOrderedKey`,
 * `hashKey`), so the record is inserted in time order too.
 */
export function familyKey(familyId: string): string {
  // What `timeOrderedKey(time, 'family:' + id)` makes, without reading the time back in.
  return isTimeOrderedFamily(familyId) ? `${familyId.slice(0, 12)}.family:${familyId}` : `family:${familyId}`;
}

/**
 * Removes every grant of the family; returns how many. A time-ordered family of a spent grant
 * takes its plain twin along: the tokens a node of the previous release issued for the same
 * handle (a code issued after the contract by a node that had not yet seen it, redeemed at one
 * of the previous release that was still running) are the same grant.
 */
export async function revokeFamily(store: Store, familyId: string): Promise<number> {
  const plain = plainFamilyOf(familyId);
  const revoked = await store.removeAll({ sessionId: familyId });
  return plain === undefined ? revoked : revoked + (await store.removeAll({ sessionId: plain }));
}
