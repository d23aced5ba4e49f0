/**
 * The service's authentication context classes (issue 35): what a session's `amr` meets, what a
 * token reports for a request, when a second factor is needed, and how `acr_values` and the
 * `claims` parameter's `acr` are read (OIDC Core §3.1.2.1, §5.5, §5.5.1.1).
 */
import { describe, expect, it } from 'vitest';
import { acrOf, acrRequestOf, reportedAcr, secondFactorDemand } from '../../src/authorize/acr.js';
import { isOAuthError } from '../../src/oauth/errors.js';

const params = (entries: Record<string, string>) => new Map(Object.entries(entries));

describe('acr', () => {
  it('a session meets mfa after a second factor, pwd after a password, nothing else', () => {
    expect(acrOf(['pwd', 'otp', 'mfa'])).toBe('mfa');
    expect(acrOf(['pwd'])).toBe('pwd');
    expect(acrOf(undefined)).toBeUndefined();
    expect(acrOf([])).toBeUndefined();
  });

  it('reports the first requested class the session meets, else its own', () => {
    const mfa = ['pwd', 'otp', 'mfa'];
    expect(reportedAcr(mfa, undefined)).toBe('mfa');
    expect(reportedAcr(mfa, { values: ['pwd'], essential: false })).toBe('pwd');
    expect(reportedAcr(mfa, { values: ['urn:other', 'mfa'], essential: false })).toBe('mfa');
    expect(reportedAcr(['pwd'], { values: ['mfa'], essential: false })).toBe('pwd');
    expect(reportedAcr(undefined, { values: ['pwd'], essential: false })).toBeUndefined();
  });

  it('asks for a second factor for requireMfa or an essential mfa; wants one for a voluntary mfa; an unknown essential class is unmeetable', () => {
    expect(secondFactorDemand(undefined, true)).toBe('required');
    expect(secondFactorDemand(undefined, false)).toBeUndefined();
    expect(secondFactorDemand({ values: ['mfa'], essential: true }, false)).toBe('required');
    expect(secondFactorDemand({ values: ['mfa', 'pwd'], essential: true }, false)).toBeUndefined();
    expect(secondFactorDemand({ values: ['urn:example:loa:4'], essential: true }, false)).toBe('unmeetable');
    expect(secondFactorDemand({ values: ['mfa'], essential: false }, false)).toBe('wanted');
    expect(secondFactorDemand({ values: ['pwd', 'mfa'], essential: false }, false)).toBeUndefined();
  });

  it('reads acr_values (leaving idp: entries to the upstream choice) and the claims parameter, which wins', () => {
    expect(acrRequestOf(params({}))).toEqual({});
    expect(acrRequestOf(params({ acr_values: 'idp:contoso' }))).toEqual({});
    expect(acrRequestOf(params({ acr_values: 'mfa idp:contoso pwd' }))).toEqual({ acr: { values: ['mfa', 'pwd'], essential: false } });
    expect(acrRequestOf(params({ acr_values: 'pwd', claims: '{"id_token":{"acr":{"essential":true,"value":"mfa"}}}' }))).toEqual({ acr: { values: ['mfa'], essential: true } });
    expect(acrRequestOf(params({ claims: '{"userinfo":{"acr":{"values":["mfa"]}}}' }))).toEqual({ acr: { values: ['mfa'], essential: false } });
    expect(acrRequestOf(params({ claims: '{"id_token":{"email":null}}', acr_values: 'mfa' }))).toEqual({ acr: { values: ['mfa'], essential: false } });
  });

  it('refuses a claims parameter that is not a JSON object, or whose acr is malformed, as invalid_request', () => {
    for (const claims of ['{nope', '[1]', '"x"', '{"id_token":{"acr":"mfa"}}']) {
      let thrown: unknown;
      try {
        acrRequestOf(params({ claims }));
      } catch (err) {
        thrown = err;
      }
      expect(isOAuthError(thrown) && thrown.code).toBe('invalid_request');
    }
  });
});
