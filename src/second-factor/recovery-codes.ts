/**
 * Recovery codes: ten, each 80 random bits written as 16 base32 letters in groups of four, for
 * a person who lost their authenticator. Stored as SHA-256 hashes: with 80 bits there is
 * nothing to find by guessing from the hash, and spending one is a single indexed update.
 * Typed codes are compared without regard to case, spaces or hyphens.
 */
import { createHash, randomBytes } from 'node:crypto';

export const recoveryCodeCount = 10;
const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

function base32(bytes: Buffer): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return out;
}

/** Ten new codes, as shown to the person (`ABCD-EFGH-IJKL-MNOP`). */
export function newRecoveryCodes(): string[] {
  return Array.from({ length: recoveryCodeCount }, () => base32(randomBytes(10)).match(/.{4}/g)!.join('-'));
}

/** What a typed code is compared as; `undefined` when it cannot be one. */
export function normalRecoveryCode(typed: string): string | undefined {
  const code = typed.toUpperCase().replace(/[\s-]/g, '');
  return /^[A-Z2-7]{16}$/.test(code) ? code : undefined;
}

/** The stored form of a code (normalised first). */
export function hashRecoveryCode(subjectId: string, normal: string): string {
  return createHash('sha256').update(`svc recovery code\0${subjectId}\0${normal}`).digest('base64url');
}
