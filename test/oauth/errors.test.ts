import { describe, expect, it } from 'vitest';
import { InvalidGrant, OAuthError, ServerError, SlowDown, isOAuthError } from '../../src/oauth/errors.js';

describe('OAuth errors', () => {
  it('know their code, status and wire form', () => {
    const error = new InvalidGrant('The device code has expired.', { logDetail: 'expired at 12:00' });
    expect(error).toBeInstanceOf(OAuthError);
    expect(isOAuthError(error)).toBe(true);
    expect([error.code, error.status, error.name]).toEqual(['invalid_grant', 400, 'InvalidGrant']);
    expect(error.toJSON()).toEqual({ error: 'invalid_grant', error_description: 'The device code has expired.' });
    expect(JSON.stringify(error.toJSON())).not.toContain('12:00');
  });

  it('capture no stack trace, and leave stack traces on for every other error', () => {
    const limit = Error.stackTraceLimit;
    const answer = new SlowDown();
    expect(answer.stack).not.toMatch(/\n\s+at /);
    expect(Error.stackTraceLimit).toBe(limit);
    expect(new Error('a fault').stack).toMatch(/\n\s+at /);
  });

  it('keep the stack of the fault they wrap', () => {
    const fault = new Error('disk on fire');
    const error = new ServerError(undefined, { cause: fault });
    expect(error.cause).toBe(fault);
    expect((error.cause as Error).stack).toMatch(/\n\s+at /);
  });
});

describe('OAuth error descriptions (RFC 6749 §5.2: %x20-21 / %x23-5B / %x5D-7E)', () => {
  const allowed = /^[\x20\x21\x23-\x5B\x5D-\x7E]*$/;

  it('keep a description that is already within the set', () => {
    expect(new InvalidGrant('The grant is invalid; try again (later).').description).toBe('The grant is invalid; try again (later).');
  });

  it('replace quotes, backslashes and anything outside printable ASCII, whoever built the description', () => {
    const error = new OAuthError('invalid_request', 'say "hi" \\ now\n\u00e9\u{1F600}');
    expect(error.description).toBe("say 'hi' / now????");
    expect(error.toJSON().error_description).toMatch(allowed);
    expect(error.message).toBe(error.description);
  });

  it('cut a description longer than 500 characters', () => {
    expect(new InvalidGrant('x'.repeat(600)).description).toHaveLength(500);
  });
});
