import { describe, expect, it } from 'vitest';
import { DEFAULT_OPTIONS, readOptions } from '../../../plugins/private-key-jwt/options.js';

const ALL = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];

describe('readOptions', () => {
  it('fills every default when the slice is empty', () => {
    expect(readOptions({})).toEqual({ clockSkew: 60, maxLifetime: 3600, audience: 'strict', algorithms: ALL });
    expect(DEFAULT_OPTIONS.algorithms).toEqual(ALL);
  });

  it('keeps given values', () => {
    expect(readOptions({ clockSkew: 0, maxLifetime: 600, audience: 'compat', algorithms: ['ES256', 'EdDSA'] })).toEqual({
      clockSkew: 0,
      maxLifetime: 600,
      audience: 'compat',
      algorithms: ['ES256', 'EdDSA'],
    });
  });

  it.each([
    [{ clockSkew: -1 }, 'clockSkew: expected a non-negative number of seconds, found -1'],
    [{ clockSkew: '60' }, 'clockSkew: expected a non-negative number of seconds, found "60"'],
    [{ clockSkew: Number.NaN }, 'clockSkew: expected a non-negative number of seconds, found null'],
    [{ maxLifetime: 0 }, 'maxLifetime: expected a positive number of seconds, found 0'],
    [{ audience: 'loose' }, 'audience: expected "strict" or "compat", found "loose"'],
    [
      { algorithms: ['RS256', 'HS256'] },
      `algorithms: expected a non-empty list of distinct values from ${ALL.join(', ')}, found ["RS256","HS256"]`,
    ],
    [
      { algorithms: [] },
      `algorithms: expected a non-empty list of distinct values from ${ALL.join(', ')}, found []`,
    ],
    [
      { algorithms: ['ES256', 'ES256'] },
      `algorithms: expected a non-empty list of distinct values from ${ALL.join(', ')}, found ["ES256","ES256"]`,
    ],
    [{ clockskew: 5 }, 'clockskew: unknown option; expected one of clockSkew, maxLifetime, audience, algorithms'],
  ])('rejects %j', (raw, message) => {
    expect(() => readOptions(raw)).toThrowError(message);
  });
});
