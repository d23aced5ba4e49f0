/**
 * The authorization request validator with plain values: which failures are shown on a page
 * (UntrustedRequestError) and which are redirected (RedirectableError), and what a valid request
 * becomes.
 */
import { describe, expect, it } from 'vitest';
import { createRequestValidator, RedirectableError, UntrustedRequestError } from '../../src/authorize/authorization-request.js';
import { resolveConfig } from '../../src/config/resolve.js';

const config = resolveConfig({
  identityResources: [{ name: 'openid', claims: ['sub'] }],
  clients: [
    { clientId: 'web', clientSecrets: [{ value: 'x' }], allowedGrantTypes: ['authorization_code'], allowedScopes: ['openid'], redirectUris: ['https://web.example/cb'], requirePkce: false },
    { clientId: 'cc', clientSecrets: [{ value: 'x' }], allowedGrantTypes: ['client_credentials'], allowedScopes: [], redirectUris: ['https://cc.example/cb'] },
  ],
}, '/');
const validator = createRequestValidator({
  clients: new Map(config.clients.map((c) => [c.clientId, c])),
  scopeCatalog: { apiScopes: new Set(), identityScopes: new Set(['openid']) },
});
const base = { client_id: 'web', redirect_uri: 'https://web.example/cb', response_type: 'code', scope: 'openid', state: 's' };
const validate = (params: Record<string, string>, pushed = false) => validator.validate(new Map(Object.entries(params)), { pushed });

describe('validate', () => {
  it('turns a good request into plain values; a confidential client that opted out of PKCE may skip it', () => {
    expect(validate({ ...base, prompt: 'login consent', max_age: '60', nonce: 'n', response_mode: 'form_post' })).toEqual({
      clientId: 'web', redirectUri: 'https://web.example/cb', responseMode: 'form_post', state: 's', scopes: ['openid'], nonce: 'n',
      codeChallenge: undefined, prompt: ['login', 'consent'], maxAge: 60, loginHint: undefined,
    });
  });

  it('an unknown client or unregistered redirect URI is not redirectable', () => {
    expect(() => validate({ ...base, client_id: 'nope' })).toThrow(UntrustedRequestError);
    expect(() => validate({ ...base, redirect_uri: 'https://evil.example/cb' })).toThrow(UntrustedRequestError);
  });

  it('later failures are redirectable, with the target', () => {
    let err: unknown;
    try {
      validate({ ...base, client_id: 'cc', redirect_uri: 'https://cc.example/cb', code_challenge: 'a'.repeat(43), code_challenge_method: 'S256' });
    } catch (e) {
      err = e;
    }
    if (!(err instanceof RedirectableError)) throw new Error('expected a RedirectableError');
    expect(err).toBeInstanceOf(RedirectableError);
    expect(err.error.code).toBe('unauthorized_client');
    expect(err.target).toEqual({ clientId: 'cc', redirectUri: 'https://cc.example/cb', responseMode: 'query', state: 's' });
  });

  it('without a challenge the request has none; a method without a challenge is refused', () => {
    expect(validate(base).codeChallenge).toBeUndefined();
    expect(() => validate({ ...base, code_challenge_method: 'S256' })).toThrow(RedirectableError);
  });
});
