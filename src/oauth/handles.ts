import { randomFillSync } from 'node:crypto';
import { timeOrderedHandle } from '../store/hash-key.js';

// One call into the CSPRNG per 8 KiB instead of one per token (Node's randomUUID pools the same
// way); every byte is handed out once.
const pool = Buffer.alloc(8192);
let offset = pool.length;

function randomBase64url(bytes: number): string {
  if (offset + bytes > pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const value = pool.toString('base64url', offset, offset + bytes);
  offset += bytes;
  return value;
}

const prefixlessHandle = /^[\w-]{43}$/;

/** A handle of this service: as `newHandle` makes them, or the bare 43 characters made before the time prefix. */
export function isHandle(value: string): boolean {
  return timeOrderedHandle.test(value) || prefixlessHandle.test(value);
}

/**
 * Reference tokens, refresh tokens, device codes: 12 hex digits of the time in milliseconds, so
 * stored keys grow in time order (see `hashKey`), then 256 bits of randomness, base64url.
 */
export function newHandle(): string {
  return Date.now().toString(16).padStart(12, '0') + randomBase64url(32);
}

/** 128 bits of randomness, base64url: a token's `jti`, unique rather than secret. */
export function newTokenId(): string {
  return randomBase64url(16);
}
