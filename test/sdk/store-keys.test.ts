import { describe, expect, it } from 'vitest';
import { timeOrderedKey } from 'svc/sdk';

describe('timeOrderedKey', () => {
  it('puts the time in milliseconds in front as 12 hex digits and a dot', () => {
    expect(timeOrderedKey(0, 'k')).toBe('000000000000.k');
    expect(timeOrderedKey(Date.UTC(2027, 0, 15, 12), 'jti:app:6d1f0c')).toBe(`${Date.UTC(2027, 0, 15, 12).toString(16).padStart(12, '0')}.jti:app:6d1f0c`);
    // A NumericDate may have a fraction (RFC 7519 §2): the same claim always gives the same key.
    expect(timeOrderedKey(1_800_000_000.9876 * 1000, 'k')).toBe(timeOrderedKey(1_800_000_000_987, 'k'));
  });

  it('sorts keys as their times: later times after earlier ones, whatever the key after the dot', () => {
    const times = [0, 999, 1_000, 1_767_225_600_000, 1_767_225_600_001, 253_402_300_799_000];
    const keys = times.map((ms, i) => timeOrderedKey(ms, `${'zyx'[i % 3]}:${i}`));
    expect([...keys].sort()).toEqual(keys);
  });

  it('leaves a time that does not fit in 12 hex digits (negative, not a number, past the year 10889) as a plain key', () => {
    for (const ms of [-1, Number.NaN, Number.POSITIVE_INFINITY, 16 ** 12]) expect(timeOrderedKey(ms, 'jti:app:x')).toBe('jti:app:x');
    expect(timeOrderedKey(16 ** 12 - 1, 'k')).toBe('ffffffffffff.k');
  });
});
