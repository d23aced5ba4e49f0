/**
 * The form of `users[].password`: a PHC string for scrypt, so other tools can produce it:
 * `$scrypt$ln=<log2 N>,r=<r>,p=<p>$<salt>$<hash>`, salt and hash in unpadded base64. The config
 * checks it at start-up; `src/oauth/password-hash.ts` hashes and verifies passwords in it.
 */
const phc = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,3}),p=(\d{1,3})\$([A-Za-z0-9+/]{11,})\$([A-Za-z0-9+/]{22,})$/;

export interface ScryptCost {
  ln: number;
  r: number;
  p: number;
}

export interface PhcScrypt extends ScryptCost {
  salt: Buffer;
  hash: Buffer;
}

export function parsePhcScrypt(encoded: string): PhcScrypt | undefined {
  const m = phc.exec(encoded);
  if (!m) return undefined;
  const [ln, r, p] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (ln < 1 || ln > 24 || r < 1 || p < 1) return undefined;
  return { ln, r, p, salt: Buffer.from(m[4]!, 'base64'), hash: Buffer.from(m[5]!, 'base64') };
}

export function isPhcScrypt(encoded: string): boolean {
  return parsePhcScrypt(encoded) !== undefined;
}

/** The cost parameters of a PHC scrypt string, or undefined when it is not one. */
export function scryptCostOf(encoded: string): ScryptCost | undefined {
  const params = parsePhcScrypt(encoded);
  return params && { ln: params.ln, r: params.r, p: params.p };
}
