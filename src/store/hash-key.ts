import { hash } from 'node:crypto';
import { timeOrderedKeyPrefix } from '../sdk/store-keys.js';

/** The handles the service makes: 12 hex digits of issuance time in milliseconds, then 256 random bits (see `newHandle`). */
export const timeOrderedHandle = /^[0-9a-f]{12}[\w-]{43}$/;

/**
 * The form a handle takes in storage: its base64url SHA-256, so a copy of the database yields no
 * usable handle. A handle of the service's own keeps its issuance-time prefix in front of the
 * digest: keys then grow in time order, so each insert lands beside the last one in the
 * primary-key B-tree instead of on a random page (on SQLite, a reference-token insert costs
 * about a third). The prefix tells no more than `created_at` does. A `timeOrderedKey` (a used
 * assertion or proof id) keeps its time the same way.
 */
export function hashKey(handle: string): string {
  const digest = hash('sha256', handle, 'base64url');
  return timeOrderedHandle.test(handle) || timeOrderedKeyPrefix.test(handle) ? handle.slice(0, 12) + digest : digest;
}
