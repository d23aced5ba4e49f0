import { createHash } from 'node:crypto';

/** The form a handle takes in storage: base64url SHA-256, so a copy of the database yields no usable handle. */
export function hashKey(handle: string): string {
  return createHash('sha256').update(handle, 'utf8').digest('base64url');
}
