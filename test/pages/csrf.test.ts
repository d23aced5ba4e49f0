import { describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { createCsrf } from '../../src/pages/csrf.js';

describe('CSRF tokens', () => {
  const secret = randomBytes(32);
  const csrf = createCsrf(secret);

  it('verify for the session they were made for', () => {
    expect(csrf.verify('session-a', csrf.tokenFor('session-a'))).toBe(true);
  });

  it('fail for another session, another secret, a missing or altered token', () => {
    const token = csrf.tokenFor('session-a');
    expect(csrf.verify('session-b', token)).toBe(false);
    expect(createCsrf(randomBytes(32)).verify('session-a', token)).toBe(false);
    expect(csrf.verify('session-a', undefined)).toBe(false);
    expect(csrf.verify('session-a', '')).toBe(false);
    expect(csrf.verify('session-a', `${token}x`)).toBe(false);
  });
});
