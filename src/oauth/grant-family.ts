/**
 * Grant families. Every token issued from one redemption (the access, refresh and ID tokens of
 * one token response, and every later rotation of that refresh token) carries one family id in
 * its `sessionId`, so revoking the family is one `removeAll({ sessionId })`: revoking a refresh
 * token ends the access tokens of its grant (RFC 7009 §2.1), and a one-time grant redeemed a
 * second time ends what its first redemption issued (RFC 6749 §4.1.2).
 *
 * Reference access tokens are removed with the family; JWT access tokens cannot be recalled and
 * live until `exp`.
 */
import { hash, randomUUID } from 'node:crypto';
import type { Store } from '../store/store.js';

export function newFamilyId(): string {
  return randomUUID();
}

/**
 * The family of the tokens a one-time grant (a device code; later an authorization code)
 * yields, derived from its handle: a second redemption finds the first one's tokens without a
 * lookup. A digest, as the family id is stored in plain.
 */
export function familyOfSpentGrant(handle: string): string {
  return hash('sha256', `svc-grant-family:${handle}`, 'base64url');
}

/** Removes every grant of the family; returns how many. */
export function revokeFamily(store: Store, familyId: string): Promise<number> {
  return store.removeAll({ sessionId: familyId });
}
