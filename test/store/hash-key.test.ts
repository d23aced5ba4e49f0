import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { newHandle } from '../../src/oauth/handles.js';
import { timeOrderedKey } from '../../src/sdk/store-keys.js';
import { hashKey } from '../../src/store/hash-key.js';
import { handlePattern } from '../support/handle-pattern.js';

const sha256 = (text: string): string => createHash('sha256').update(text).digest('base64url');

describe('hashKey', () => {
  it('is the base64url SHA-256 of a key the service did not make', () => {
    expect(hashKey('abc')).toBe('ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0');
    expect(hashKey('é')).toBe(hashKey('\u00e9'));
    expect(hashKey('abc')).not.toBe(hashKey('abd'));
    // A user code, an assertion id key and a handle from before issuance-time prefixes.
    for (const key of ['BCDF-GHJK', 'jti:app:6d1f0c', 'x'.repeat(43)]) expect(hashKey(key)).toBe(sha256(key));
  });

  it("keeps a service handle's issuance-time prefix in front of the digest, and nothing else of it", () => {
    const handle = newHandle();
    expect(handle).toMatch(handlePattern);

    const key = hashKey(handle);
    expect(key).toBe(handle.slice(0, 12) + sha256(handle));
    expect(key).not.toContain(handle.slice(12, 20));
  });

  it('keeps the time of a timeOrderedKey in front of the digest, and nothing else of it', () => {
    const key = timeOrderedKey(1_800_000_000_000, 'plugin:private-key-jwt:jti:app:6d1f0c');
    expect(hashKey(key)).toBe(key.slice(0, 12) + sha256(key));
    expect(hashKey(key)).not.toContain('6d1f0c');
    // Without the dot it is no time-ordered key: hashed whole, like any key the service did not make.
    expect(hashKey('1a2b3c4d5e6fjti:app:6d1f0c')).toBe(sha256('1a2b3c4d5e6fjti:app:6d1f0c'));
    expect(hashKey(timeOrderedKey(1_800_000_000_000, 'a')) < hashKey(timeOrderedKey(1_800_000_000_001, 'a'))).toBe(true);
  });

  it('orders the keys of handles by the time they were made', async () => {
    const first = newHandle();
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = newHandle();

    expect(Number.parseInt(first.slice(0, 12), 16)).toBeLessThanOrEqual(Date.now());
    expect(hashKey(first) < hashKey(second)).toBe(true);
  });
});
