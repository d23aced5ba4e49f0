/**
 * An API's `requiredAcr` (issue 35): how classes compare (`mfa` meets `pwd`), which APIs a token
 * is for (its audience, else every API of its scopes), and the token endpoint's refusal.
 */
import { describe, expect, it } from 'vitest';
import { meetsAcr, strongestAcr } from '../../src/oauth/acr-classes.js';
import { createResourceCatalog } from '../../src/oauth/resources.js';
import { requireAcrMet } from '../../src/oauth/required-acr.js';
import { checkConfig } from '../../src/config/load.js';

const config = checkConfig({
  apiScopes: [{ name: 'payroll.read' }, { name: 'wiki.read' }, { name: 'mail.read' }],
  apiResources: [
    { name: 'payroll', uri: 'https://payroll.example.com/', scopes: ['payroll.read'], requiredAcr: 'mfa' },
    { name: 'wiki', scopes: ['wiki.read'], requiredAcr: 'pwd' },
    { name: 'mail', scopes: ['mail.read'] },
  ],
  identityResources: [{ name: 'openid', claims: ['sub'] }],
}, process.cwd());
const catalog = createResourceCatalog({ apiResources: config.apiResources, acceptNames: false });
const user = (signIn: { acr?: string; amr?: string[] }) => ({ kind: 'user', id: 'sub-1', authTime: 1, ...signIn }) as const;

describe('meetsAcr', () => {
  it('judges by amr first (a session asked for pwd that gave a code still meets mfa), else by acr', () => {
    expect(meetsAcr('mfa', { acr: 'pwd', amr: ['pwd', 'otp', 'mfa'] })).toBe(true);
    expect(meetsAcr('mfa', { acr: 'mfa' })).toBe(true);
    expect(meetsAcr('pwd', { acr: 'mfa' })).toBe(true);
    expect(meetsAcr('mfa', { acr: 'pwd', amr: ['pwd'] })).toBe(false);
    expect(meetsAcr('pwd', {})).toBe(false);
    expect(meetsAcr('mfa', { acr: 'urn:other:loa:4', amr: 'mfa' })).toBe(false);
    expect(strongestAcr([undefined, 'pwd', 'mfa', 'pwd'])).toBe('mfa');
    expect(strongestAcr([undefined])).toBeUndefined();
  });
});

describe('the APIs a token is for', () => {
  it('takes the audience when named (by uri or name), else every API of the scopes', () => {
    expect(catalog.requiredAcr(['https://payroll.example.com/'], ['payroll.read', 'wiki.read'])).toBe('mfa');
    expect(catalog.requiredAcr(['wiki'], ['payroll.read', 'wiki.read'])).toBe('pwd');
    expect(catalog.requiredAcr(['mail'], ['payroll.read'])).toBeUndefined();
    expect(catalog.requiredAcr(undefined, ['openid', 'mail.read', 'payroll.read'])).toBe('mfa');
    expect(catalog.requiredAcr(undefined, ['openid', 'mail.read'])).toBeUndefined();
  });
});

describe('requireAcrMet', () => {
  it('refuses a user whose sign-in does not meet it with invalid_grant; a client acting for itself is not judged', () => {
    expect(() => requireAcrMet('mfa', user({ acr: 'pwd', amr: ['pwd'] }), 'app')).toThrow(expect.objectContaining({
      code: 'invalid_grant', message: 'The user\'s sign-in does not meet the authentication class this API requires (acr mfa); the user must sign in again with it.',
    }));
    expect(() => requireAcrMet('mfa', user({ acr: 'mfa', amr: ['pwd', 'otp', 'mfa'] }), 'app')).not.toThrow();
    expect(() => requireAcrMet(undefined, user({}), 'app')).not.toThrow();
    expect(() => requireAcrMet('mfa', { kind: 'client', id: 'm2m' }, 'm2m')).not.toThrow();
  });
});
