import { describe, expect, it } from 'vitest';
import { userCodeScheme } from '../../src/device/user-code.js';

describe('base20 user codes (the default)', () => {
  const scheme = userCodeScheme('base20');

  it('are 8 letters without vowels or look-alikes, shown as XXXX-XXXX', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const code = scheme.generate();
      expect(code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{8}$/);
      for (const c of code) seen.add(c);
    }
    // Every letter of the alphabet turns up: no letter is left out by a biased draw.
    expect([...seen].sort().join('')).toBe('BCDFGHJKLMNPQRSTVWXZ');
    expect(scheme.display('BCDFGHJK')).toBe('BCDF-GHJK');
  });

  it('match case-insensitively with dashes and spaces ignored', () => {
    for (const typed of ['BCDF-GHJK', 'bcdf-ghjk', 'bcdfghjk', ' bcdf ghjk ', 'B-C-D-F G H J K', 'bcdf\u2013ghjk']) {
      expect(scheme.normalize(typed)).toBe('BCDFGHJK');
    }
  });

  it('refuse what cannot be a code', () => {
    for (const typed of ['', 'BCDF-GHJ', 'BCDF-GHJKL', 'ABCD-EFGH', 'BCDF-GHJ1', 'BCDF_GHJK', 'BCDF.GHJK']) {
      expect(scheme.normalize(typed)).toBeUndefined();
    }
  });
});

describe('numeric user codes', () => {
  const scheme = userCodeScheme('numeric');

  it('are 9 digits shown as 123-456-789', () => {
    const code = scheme.generate();
    expect(code).toMatch(/^\d{9}$/);
    expect(scheme.display('123456789')).toBe('123-456-789');
  });

  it('match with or without dashes and spaces, and refuse letters', () => {
    expect(scheme.normalize('123-456-789')).toBe('123456789');
    expect(scheme.normalize('123 456 789')).toBe('123456789');
    expect(scheme.normalize('12345678')).toBeUndefined();
    expect(scheme.normalize('BCDF-GHJK')).toBeUndefined();
  });
});
