/**
 * Passwords hashed and verified in the PHC string format for scrypt (`src/config/password-format.ts`),
 * so other tools can produce them.
 */
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { parsePhcScrypt, type ScryptCost } from '../config/password-format.js';

function derive(password: string, salt: Buffer, ln: number, r: number, p: number, length: number): Promise<Buffer> {
  const N = 2 ** ln;
  return new Promise((resolve, reject) => {
    // maxmem must cover 128 * N * r bytes, which the default (32 MiB) does not for ln >= 15.
    scrypt(password.normalize('NFC'), salt, length, { N, r, p, maxmem: 256 * N * r + 1024 * 1024 }, (err, key) =>
      err ? reject(err) : resolve(key),
    );
  });
}

const b64 = (buf: Buffer): string => buf.toString('base64').replace(/=+$/, '');

/**
 * The cost a new hash gets. Raising it upgrades the database's users one by one: each hash
 * below it is replaced at that user's next successful sign-in (`src/users/`).
 */
export const defaultScryptCost: Readonly<ScryptCost> = Object.freeze({ ln: 15, r: 8, p: 1 });

export async function hashPassword(password: string, cost: ScryptCost = defaultScryptCost): Promise<string> {
  const salt = randomBytes(16);
  const hash = await derive(password, salt, cost.ln, cost.r, cost.p, 32);
  return `$scrypt$ln=${cost.ln},r=${cost.r},p=${cost.p}$${b64(salt)}$${b64(hash)}`;
}

/** Constant-time comparison of the derived key; a malformed hash never matches. */
export async function verifyPassword(password: string, encoded: string): Promise<boolean> {
  const params = parsePhcScrypt(encoded);
  if (!params) return false;
  const candidate = await derive(password, params.salt, params.ln, params.r, params.p, params.hash.length);
  return timingSafeEqual(candidate, params.hash);
}
