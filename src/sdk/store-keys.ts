/**
 * Keys for records made at a high rate, such as used assertion and proof ids.
 *
 * The store keeps a record under the hash of its key, and a hash lands on a random page of the
 * primary-key B-tree: on SQLite each such insert writes a page of its own to the write-ahead log
 * and later back into the database. A key that starts with a time keeps that time in front of
 * the hash, so records made together sit together in the index, and a commit of many of them
 * writes a few pages instead of one each (measured in docs/guides/performance.md).
 */

/** 12 lowercase hex digits of epoch milliseconds and a dot: what `timeOrderedKey` puts in front. */
export const timeOrderedKeyPrefix = /^[0-9a-f]{12}\./;

/**
 * `key` with `ms` (epoch milliseconds, floored) in front as 12 hex digits and a dot, which the
 * store keeps unhashed in front of the key's hash. The time is part of the key: the same key at
 * another time is another record. Use a time the record's own content fixes (a JWT's `exp` or
 * `iat`), so that the same content always makes the same key, and only for keys whose time tells
 * no more than the record's `createdAt` or `expiresAt` already do.
 *
 * @example timeOrderedKey(exp * 1000, `jti:${clientId}:${jti}`) // '019a5c0e3b40.jti:app:6d1f0c'
 */
export function timeOrderedKey(ms: number, key: string): string {
  const time = Math.floor(ms);
  // 12 hex digits hold every time up to the year 10889; anything else (negative, NaN, later) is
  // kept as a plain key, which the store hashes whole, so the record is still kept, only unordered.
  if (!(time >= 0 && time < 16 ** 12)) return key;
  return `${time.toString(16).padStart(12, '0')}.${key}`;
}
