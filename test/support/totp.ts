/**
 * An RFC 6238 implementation of the tests' own (node:crypto HMAC-SHA-1, RFC 4226 §5.3 dynamic
 * truncation), independent of the `otpauth` package the service uses, checked against RFC 6238
 * Appendix B in `test/second-factor/totp.test.ts`. Codes for a base32 secret at a given time.
 */
import { createHmac } from 'node:crypto';

export function hotp(key: Buffer, counter: number, digits = 6): string {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac('sha1', key).update(message).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  const binary = ((mac[offset]! & 0x7f) << 24) | (mac[offset + 1]! << 16) | (mac[offset + 2]! << 8) | mac[offset + 3]!;
  return String(binary % 10 ** digits).padStart(digits, '0');
}

/** RFC 6238 §4.2: T = floor((time - T0) / X), T0 = 0, X = 30 s. */
export const timeStep = (timeMs: number): number => Math.floor(timeMs / 1000 / 30);

export function totpAt(key: Buffer, timeMs: number, digits = 6): string {
  return hotp(key, timeStep(timeMs), digits);
}

/** RFC 4648 base32, as the enrolment page shows the secret (spaces ignored). */
export function fromBase32(text: string): Buffer {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const c of text.replace(/[\s=]/g, '').toUpperCase()) {
    value = (value << 5) | alphabet.indexOf(c);
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}
