/** hashPassword / verifyPassword: scrypt in the PHC string format, so other tools interoperate. */
import { randomBytes, scryptSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isPhcScrypt } from '../../src/config/password-format.js';
import { hashPassword, verifyPassword } from '../../src/oauth/password-hash.js';

const cheap = { ln: 4, r: 8, p: 1 };
const b64 = (buf: Buffer) => buf.toString('base64').replace(/=+$/, '');

describe('hashPassword', () => {
  it('writes $scrypt$ln=15,r=8,p=1$<salt>$<hash> by default, salt 16 bytes and hash 32, unpadded base64', async () => {
    const encoded = await hashPassword('correct horse');
    expect(encoded).toMatch(/^\$scrypt\$ln=15,r=8,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    expect(isPhcScrypt(encoded)).toBe(true);
  });

  it('salts every hash', async () => {
    expect(await hashPassword('same', cheap)).not.toBe(await hashPassword('same', cheap));
  });

  it('records the cost it used', async () => {
    expect(await hashPassword('x', { ln: 5, r: 4, p: 2 })).toMatch(/^\$scrypt\$ln=5,r=4,p=2\$/);
  });
});

describe('verifyPassword', () => {
  it('accepts the password and nothing else', async () => {
    const encoded = await hashPassword('correct horse', cheap);
    expect(await verifyPassword('correct horse', encoded)).toBe(true);
    for (const wrong of ['correct horse ', 'Correct horse', 'correct', '']) {
      expect(await verifyPassword(wrong, encoded), wrong).toBe(false);
    }
  });

  it('verifies a PHC string made by another scrypt implementation', async () => {
    const salt = randomBytes(16);
    const hash = scryptSync('interop-pw', salt, 32, { N: 2 ** 10, r: 8, p: 1 });
    expect(await verifyPassword('interop-pw', `$scrypt$ln=10,r=8,p=1$${b64(salt)}$${b64(hash)}`)).toBe(true);
  });

  it('verifies the sample config’s demo user (alice-password)', async () => {
    const alice = '$scrypt$ln=15,r=8,p=1$mhlXkX6tUbLjZQFHgaaTHA$ECJyChWPuJMmc98jP8W0GRSEi5Y3IpXKDeWeUOGYVXk';
    expect(await verifyPassword('alice-password', alice)).toBe(true);
    expect(await verifyPassword('bob-password', alice)).toBe(false);
  });

  it('treats canonically equivalent Unicode spellings as the same password (NFC)', async () => {
    const encoded = await hashPassword('caf\u00e9', cheap);
    expect(await verifyPassword('cafe\u0301', encoded)).toBe(true);
  });

  it.each([
    ['plain text', 'alice-password'],
    ['another scheme', '$argon2id$v=19$m=65536,t=3,p=4$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA'],
    ['cost out of range', '$scrypt$ln=40,r=8,p=1$mhlXkX6tUbLjZQFHgaaTHA$ECJyChWPuJMmc98jP8W0GRSEi5Y3IpXKDeWeUOGYVXk'],
    ['missing hash', '$scrypt$ln=15,r=8,p=1$mhlXkX6tUbLjZQFHgaaTHA$'],
    ['empty', ''],
  ])('never matches a malformed hash (%s), and isPhcScrypt says so', async (_case, encoded) => {
    expect(isPhcScrypt(encoded)).toBe(false);
    expect(await verifyPassword('alice-password', encoded)).toBe(false);
  });
});
