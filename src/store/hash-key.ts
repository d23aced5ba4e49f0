import { hash } from 'node:crypto';

/** The form a handle takes in storage: base64url SHA-256, so a copy of the database yields no usable handle. */
export function hashKey(handle: string): string {
  return hash('sha256', handle, 'base64url');
}
