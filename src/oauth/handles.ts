import { randomBytes } from 'node:crypto';

/** 256 bits of randomness, base64url: reference tokens, refresh tokens, device codes. */
export function newHandle(): string {
  return randomBytes(32).toString('base64url');
}
