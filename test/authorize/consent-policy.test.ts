/**
 * When the consent page must be shown, with plain values: operators' clients as configured,
 * self-registered clients always (remembered consent reused except for offline_access, OIDC Core
 * §11), public clients at a custom scheme or loopback address every time (RFC 8252 §8.6).
 */
import { describe, expect, it } from 'vitest';
import type { AuthorizationRequest } from '../../src/authorize/authorization-request.js';
import { isNativeRedirectUri, needsConsent, redirectTargetOf } from '../../src/authorize/consent-policy.js';
import { resolveConfig } from '../../src/config/resolve.js';

const clients = new Map(resolveConfig({
  clients: [
    { clientId: 'web', clientSecrets: [{ value: 'x' }], allowedGrantTypes: ['authorization_code'], allowedScopes: ['openid'], redirectUris: ['https://web.example/cb', 'http://127.0.0.1/cb'] },
    { clientId: 'asks', clientSecrets: [{ value: 'x' }], requireConsent: true, allowedGrantTypes: ['authorization_code'], allowedScopes: ['openid'], redirectUris: ['https://asks.example/cb'] },
    {
      clientId: 'registered', clientSecrets: [{ value: 'x' }], allowedGrantTypes: ['authorization_code'], allowedScopes: ['openid'], allowOfflineAccess: true,
      redirectUris: ['https://rp.example/cb'], properties: { registered: 'true' },
    },
    // Issue 36: registered anonymously, and named by its metadata document.
    { clientId: 'open', requireClientSecret: false, allowedGrantTypes: ['authorization_code'], allowedScopes: ['openid'], redirectUris: ['https://agent.example/cb'], properties: { registered: 'true', 'registration.open': 'true' } },
    { clientId: 'document', requireClientSecret: false, allowedGrantTypes: ['authorization_code'], allowedScopes: ['openid'], redirectUris: ['https://agent.example/cb'], properties: { registered: 'true', metadataDocument: 'true' } },
    { clientId: 'native', requireClientSecret: false, allowedGrantTypes: ['authorization_code'], allowedScopes: ['openid'], redirectUris: ['com.example.app:/cb', 'https://native.example/cb'] },
  ],
}, '/').clients.map((c) => [c.clientId, c]));

const request = (clientId: string, redirectUri: string, extra: Partial<AuthorizationRequest> = {}): AuthorizationRequest => ({
  clientId, redirectUri, responseMode: 'query', state: undefined, scopes: ['openid'], nonce: undefined, codeChallenge: undefined, prompt: [], maxAge: undefined, loginHint: undefined, ...extra,
});
const decide = (clientId: string, redirectUri: string, remembered: string[], extra: Partial<AuthorizationRequest> = {}, approvedNow = false) =>
  needsConsent(request(clientId, redirectUri, extra), clients.get(clientId)!, { remembered, approvedNow });

describe('needsConsent', () => {
  it('an anonymously registered client or a metadata document\'s: every time, a remembered consent never counts (issue 36)', () => {
    expect(decide('open', 'https://agent.example/cb', ['openid'])).toBe(true);
    expect(decide('document', 'https://agent.example/cb', ['openid'])).toBe(true);
    expect(decide('open', 'https://agent.example/cb', ['openid'], {}, true)).toBe(false);
  });

  it('an operator\'s client: only with requireConsent, and a remembered consent counts', () => {
    expect(decide('web', 'https://web.example/cb', [])).toBe(false);
    expect(decide('asks', 'https://asks.example/cb', [])).toBe(true);
    expect(decide('asks', 'https://asks.example/cb', ['openid'])).toBe(false);
    expect(decide('web', 'https://web.example/cb', [], { prompt: ['consent'] })).toBe(true);
  });

  it('a self-registered client: always, whatever requireConsent says; remembered consent counts except for offline_access', () => {
    expect(decide('registered', 'https://rp.example/cb', [])).toBe(true);
    expect(decide('registered', 'https://rp.example/cb', ['openid'])).toBe(false);
    expect(decide('registered', 'https://rp.example/cb', ['openid', 'offline_access'], { scopes: ['openid', 'offline_access'] })).toBe(true);
    expect(decide('registered', 'https://rp.example/cb', [], { scopes: ['openid', 'offline_access'] }, true)).toBe(false);
  });

  it('a public client at a custom scheme: every time, remembered consent or not; at its https URI as configured', () => {
    expect(decide('native', 'com.example.app:/cb', ['openid'])).toBe(true);
    expect(decide('native', 'com.example.app:/cb', [], {}, true)).toBe(false);
    expect(decide('native', 'https://native.example/cb', [])).toBe(false);
  });

  it('a confidential client at a loopback address: as configured (its secret says who it is)', () => {
    expect(decide('web', 'http://127.0.0.1:5000/cb', [])).toBe(false);
  });
});

describe('what the consent page names as the next stop', () => {
  it.each([
    ['https://rp.example:8443/cb?x=1', 'rp.example:8443', false],
    ['http://127.0.0.1:5000/cb', '127.0.0.1:5000', true],
    ['http://[::1]/cb', '[::1]', true],
    ['http://localhost/cb', 'localhost', true],
    ['com.example.app:/cb', 'com.example.app', true],
    ['https://app.example/cb', 'app.example', false],
  ])('%s: %s (native: %s)', (uri, target, native) => {
    expect(redirectTargetOf(uri)).toBe(target);
    expect(isNativeRedirectUri(uri)).toBe(native);
  });
});
