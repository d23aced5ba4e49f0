/**
 * One-time codes: the tests' own RFC 6238 against Appendix B, then the service's `otpauth`
 * wrapper against it: the one-step window either side, nothing wider, and the step it names.
 */
import { describe, expect, it } from 'vitest';
import { matchingStep, newTotpSecret, totpUri } from '../../src/second-factor/totp.js';
import { hashRecoveryCode, newRecoveryCodes, normalRecoveryCode } from '../../src/second-factor/recovery-codes.js';
import { fromBase32, hotp, timeStep, totpAt } from '../support/totp.js';

// RFC 6238 Appendix B, SHA-1 rows: the seed is the ASCII "12345678901234567890", 8 digits.
const seed = Buffer.from('12345678901234567890', 'ascii');
const appendixB: Array<[number, string]> = [
  [59, '94287082'], [1111111109, '07081804'], [1111111111, '14050471'], [1234567890, '89005924'], [2000000000, '69279037'], [20000000000, '65353130'],
];

describe('RFC 6238 in the tests', () => {
  it.each(appendixB)('T = %i s gives %s', (seconds, code) => {
    expect(totpAt(seed, seconds * 1000, 8)).toBe(code);
  });
  it('RFC 4226 Appendix D: HOTP of counter 0 and 9', () => {
    expect(hotp(seed, 0)).toBe('755224');
    expect(hotp(seed, 9)).toBe('520489');
  });
});

describe('the service\'s one-time codes', () => {
  const secret = newTotpSecret();
  const key = fromBase32(secret);
  const now = 1_750_000_000_000;

  it('makes a 160-bit base32 secret and an otpauth URI naming the issuer', () => {
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(key.length).toBe(20);
    const uri = new URL(totpUri(secret, 'id.example.com', 'grace'));
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.searchParams.get('secret')).toBe(secret);
    expect(uri.searchParams.get('issuer')).toBe('id.example.com');
    expect(uri.searchParams.get('period')).toBe('30');
  });

  it('accepts the Appendix B codes (six digits) at their time', () => {
    const seedSecret = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
    for (const [seconds, code] of appendixB) expect(matchingStep(seedSecret, code.slice(2), seconds * 1000)).toBe(timeStep(seconds * 1000));
  });

  it('accepts one step either side, with the step it was for, and nothing further', () => {
    const step = timeStep(now);
    expect(matchingStep(secret, totpAt(key, now), now)).toBe(step);
    expect(matchingStep(secret, totpAt(key, now - 30_000), now)).toBe(step - 1);
    expect(matchingStep(secret, totpAt(key, now + 30_000), now)).toBe(step + 1);
    expect(matchingStep(secret, totpAt(key, now - 60_000), now)).toBeUndefined();
    expect(matchingStep(secret, totpAt(key, now + 60_000), now)).toBeUndefined();
    expect(matchingStep(secret, 'abcdef', now)).toBeUndefined();
  });
});

describe('recovery codes', () => {
  it('are ten, distinct, 80 bits each; typed codes compare without case, spaces or hyphens', () => {
    const codes = newRecoveryCodes();
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const c of codes) expect(c).toMatch(/^[A-Z2-7]{4}(-[A-Z2-7]{4}){3}$/);
    const typed = ` ${codes[0]!.toLowerCase().replaceAll('-', ' ')} `;
    expect(normalRecoveryCode(typed)).toBe(normalRecoveryCode(codes[0]!));
    expect(normalRecoveryCode('123456')).toBeUndefined();
    expect(hashRecoveryCode('s1', normalRecoveryCode(codes[0]!)!)).not.toBe(hashRecoveryCode('s2', normalRecoveryCode(codes[0]!)!));
  });
});
