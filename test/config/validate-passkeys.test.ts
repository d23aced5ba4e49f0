/**
 * Start-up checks of `secondFactor.passkeys` (issue 35): the WebAuthn relying party is the
 * issuer's host, so passkeys need a domain name in a secure context (https, or localhost).
 */
import { describe, expect, it } from 'vitest';
import { validateUserConfig } from '../../src/config/validate.js';

const configWith = (issuer: string, passkeys = true) => ({
  issuer,
  identityResources: [{ name: 'openid', claims: ['sub'] }],
  secondFactor: { passkeys },
});

describe('secondFactor.passkeys', () => {
  it('accepts an https issuer with a domain name, and http://localhost', () => {
    expect(validateUserConfig(configWith('https://id.example.com'))).toEqual([]);
    expect(validateUserConfig(configWith('http://localhost:5000'))).toEqual([]);
    expect(validateUserConfig(configWith('http://id.localhost:5000'))).toEqual([]);
  });

  it('refuses an issuer whose host is an IP address, and plain http elsewhere', () => {
    expect(validateUserConfig(configWith('https://10.0.0.7'))).toEqual([
      'secondFactor.passkeys: passkeys need an issuer whose host is a domain name (the WebAuthn relying party id), not an IP address, got issuer "https://10.0.0.7"',
    ]);
    expect(validateUserConfig(configWith('http://[::1]:5000'))).toHaveLength(1);
    expect(validateUserConfig(configWith('http://id.example.com'))).toEqual([
      'secondFactor.passkeys: passkeys need an https issuer (or http://localhost while trying them), got issuer "http://id.example.com"',
    ]);
  });

  it('says nothing while passkeys are off', () => {
    expect(validateUserConfig(configWith('http://10.0.0.7:5000', false))).toEqual([]);
  });
});
