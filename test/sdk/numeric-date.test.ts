/** RFC 7519 §2 NumericDate range check, the guard before any JWT time claim becomes a date. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isNumericDate, MAX_NUMERIC_DATE } from 'svc/sdk';

describe('isNumericDate', () => {
  it.each([0, 1, 1_800_000_000, 1_800_000_000.25, MAX_NUMERIC_DATE])('accepts %s', (value) => {
    expect(isNumericDate(value)).toBe(true);
  });

  it.each<[string, unknown]>([
    ['a negative number', -1],
    ['the year 10000', MAX_NUMERIC_DATE + 1],
    ['9e12, past the largest JavaScript date', 9e12],
    ['-9e12', -9e12],
    ['1e300', 1e300],
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['-Infinity', Number.NEGATIVE_INFINITY],
    ['a numeric string', '1800000000'],
    ['null', null],
    ['a boolean', true],
  ])('rejects %s', (_case, value) => {
    expect(isNumericDate(value)).toBe(false);
  });

  it('lets every accepted value become a date', () => {
    fc.assert(
      fc.property(fc.double(), (value) => {
        if (isNumericDate(value)) expect(() => new Date(value * 1000).toISOString()).not.toThrow();
      }),
    );
  });
});
