/**
 * Passwords in the PHC string format for scrypt, so other tools can produce them:
 * `$scrypt$ln=<log2 N>,r=<r>,p=<p>$<salt>$<hash>`, salt and hash in unpadded base64.
 */
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

const phc = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,3}),p=(\d{1,3})\$([A-Za-z0-9+/]{11,})\$([A-Za-z0-9+/]{22,})$/;

interface Params {
  ln: number;
  r: number;
  p: number;
  salt: Buffer;
  hash: Buffer;
}

function parse(encoded: string): Params | undefined {
  const m = phc.exec(encoded);
  if (!m) return undefined;
  const [ln, r, p] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (ln < 1 || ln > 24 || r < 1 || p < 1) return undefined;
  return { ln, r, p, salt: Buffer.from(m[4]!, 'base64'), hash: Buffer.from(m[5]!, 'base64') };
}

export function isPhcScrypt(encoded: string): boolean {
  return parse(encoded) !== undefined;
}

export interface ScryptCost {
  ln: number;
  r: number;
  p: number;
}

/** The cost parameters of a PHC scrypt string, or undefined when it is not one. */
export function scryptCostOf(encoded: string): ScryptCost | undefined {
  const params = parse(encoded);
  return params && { ln: params.ln, r: params.r, p: params.p };
}

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

export async function hashPassword(password: string, cost: ScryptCost = { ln: 15, r: 8, p: 1 }): Promise<string> {
  const salt = randomBytes(16);
  const hash = await derive(password, salt, cost.ln, cost.r, cost.p, 32);
  return `$scrypt$ln=${cost.ln},r=${cost.r},p=${cost.p}$${b64(salt)}$${b64(hash)}`;
}

/** Constant-time comparison of the derived key; a malformed hash never matches. */
export async function verifyPassword(password: string, encoded: string): Promise<boolean> {
  const params = parse(encoded);
  if (!params) return false;
  const candidate = await derive(password, params.salt, params.ln, params.r, params.p, params.hash.length);
  return timingSafeEqual(candidate, params.hash);
}
