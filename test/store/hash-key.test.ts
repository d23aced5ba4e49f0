import { describe, expect, it } from 'vitest';
import { hashKey } from '../../src/store/hash-key.js';

describe('hashKey', () => {
  it('is the base64url SHA-256 of the handle', () => {
    expect(hashKey('abc')).toBe('ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0');
    expect(hashKey('é')).toBe(hashKey('\u00e9'));
    expect(hashKey('abc')).not.toBe(hashKey('abd'));
  });
});
