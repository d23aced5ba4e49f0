/**
 * RFC 7519 §2 NumericDate, checked before any arithmetic: a claim signed by a trusted key can
 * still hold any JSON number, and a `nbf` of 9e12 seconds is past the last instant a JavaScript
 * `Date` holds (8.64e15 ms), so turning it into a date throws. Fractional seconds are accepted,
 * as §2 allows ("non-integer values can be represented").
 */

/** 9999-12-31T23:59:59Z: later than any real token lives, well inside what a `Date` holds. */
export const MAX_NUMERIC_DATE = 253_402_300_799;

/** A number of seconds from 1970-01-01T00:00:00Z to 9999-12-31T23:59:59Z; NaN and ±Infinity fail. */
export function isNumericDate(value: unknown): value is number {
  return typeof value === 'number' && value >= 0 && value <= MAX_NUMERIC_DATE;
}
