import { describe, expect, it } from 'vitest';
import { validateUserConfig } from '../../src/config/validate.js';
import { passwordProblem, resolvePasswordRules } from '../../src/config/password-rules.js';

describe('passwordRules', () => {
  it('defaults to at least 8 characters, counted in code points', () => {
    const rules = resolvePasswordRules(undefined);
    expect(passwordProblem('1234567', rules)).toBe('the password is too short: at least 8 characters');
    expect(passwordProblem('12345678', rules)).toBeUndefined();
    expect(passwordProblem('🔑🔑🔑🔑🔑🔑🔑', rules)).toBe('the password is too short: at least 8 characters');
    expect(passwordProblem('x'.repeat(1025), rules)).toBe('the password is too long: at most 1024 characters');
  });

  it('stops start-up naming the field', () => {
    const base = { issuer: 'http://localhost:5000' };
    expect(validateUserConfig({ ...base, passwordRules: { minLength: 0 } })).toContain('passwordRules.minLength: expected a whole number from 1 to 256, got 0');
    expect(validateUserConfig({ ...base, passwordRules: { refused: 'password' } })).toContain('passwordRules.refused: expected a list of strings (the passwords to refuse)');
    expect(validateUserConfig({ ...base, passwordRules: { minLenght: 9 } })).toContain('passwordRules.minLenght: unknown field (allowed: minLength, refused)');
    expect(validateUserConfig({ ...base, passwordRules: { minLength: 12, refused: ['letmein'] } })).toEqual([]);
  });
});
