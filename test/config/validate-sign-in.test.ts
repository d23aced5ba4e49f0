/**
 * Start-up checks of the sign-in client fields (issue 16): a client that could never complete
 * the authorization code flow safely stops start-up with a message naming the field.
 */
import { describe, expect, it } from 'vitest';
import { validateUserConfig } from '../../src/config/validate.js';
import { resolveConfig } from '../../src/config/resolve.js';

const webClient = {
  clientId: 'web',
  requireClientSecret: false,
  allowedGrantTypes: ['authorization_code'],
  allowedScopes: ['openid'],
  redirectUris: ['https://app.example.com/callback'],
};
const configWith = (patch: Record<string, unknown>, issuer = 'https://id.example.com') => ({
  issuer,
  identityResources: [{ name: 'openid', claims: ['sub'] }],
  clients: [{ ...webClient, ...patch }],
});

describe('sign-in client fields', () => {
  it('accepts a web client and fills in the defaults', () => {
    expect(validateUserConfig(configWith({}))).toEqual([]);
    const [client] = resolveConfig(configWith({}), '/').clients;
    expect(client).toMatchObject({
      redirectUris: ['https://app.example.com/callback'], postLogoutRedirectUris: [], requirePkce: true,
      requireConsent: false, requirePushedAuthorization: false, authorizationCodeLifetime: 300,
    });
  });

  it('refuses authorization_code without redirectUris', () => {
    expect(validateUserConfig(configWith({ redirectUris: undefined }))).toEqual([
      'clients[0].redirectUris: required with the authorization_code grant: list the exact URIs the client may be sent back to',
    ]);
    expect(validateUserConfig(configWith({ redirectUris: [] }))).toHaveLength(1);
  });

  it('refuses a redirect URI with a fragment, and one that is not a URI', () => {
    expect(validateUserConfig(configWith({ redirectUris: ['https://app.example.com/cb#x'] }))).toEqual([
      'clients[0].redirectUris[0]: a redirect URI must not contain a fragment (RFC 6749 §3.1.2)',
    ]);
    expect(validateUserConfig(configWith({ postLogoutRedirectUris: ['/relative'] }))).toEqual([
      'clients[0].postLogoutRedirectUris[0]: expected an absolute URI such as "https://app.example.com/callback", got "/relative"',
    ]);
  });

  it('refuses an http redirect URI that is not loopback when the issuer is https', () => {
    expect(validateUserConfig(configWith({ redirectUris: ['http://app.example.com/cb'] }))).toEqual([
      'clients[0].redirectUris[0]: an http redirect URI is allowed only for a loopback address (127.0.0.1 or [::1], RFC 8252 §7.3) when the issuer is https; use https',
    ]);
    expect(validateUserConfig(configWith({ redirectUris: ['http://127.0.0.1/cb', 'http://[::1]:8080/cb', 'com.example.app:/cb'] }))).toEqual([]);
    expect(validateUserConfig(configWith({ redirectUris: ['http://app.example.com/cb'] }, 'http://localhost:5000'))).toEqual([]);
  });

  it('refuses a public client without PKCE, and checks types and the code lifetime', () => {
    expect(validateUserConfig(configWith({ requirePkce: false }))).toEqual([
      'clients[0].requirePkce: a public client (requireClientSecret: false) must use PKCE; remove requirePkce: false',
    ]);
    expect(validateUserConfig(configWith({ requireConsent: 'yes', authorizationCodeLifetime: 3600 }))).toEqual([
      'clients[0].requireConsent: expected true or false, got "yes"',
      'clients[0].authorizationCodeLifetime: expected a whole number from 1 to 600, got number 3600',
    ]);
  });
});

describe('redirect URIs that cannot be what the operator meant (issue 33)', () => {
  it.each([
    ['host:port without a scheme', 'localhost:3000/callback', 'a redirect URI needs its scheme: without one, "host:port/path" is read as a custom scheme; write "http://localhost:3000/callback"'],
    ['a host name without a scheme', 'app.example.com/callback', 'a redirect URI needs its scheme: without one, "host:port/path" is read as a custom scheme; write "https://app.example.com/callback"'],
    ['a trailing space', 'https://app.example.com/callback ', 'a redirect URI must not contain spaces, tabs or line breaks (a trailing space is easy to miss); write "https://app.example.com/callback"'],
    ['a wildcard', 'https://app.example.com/*', 'a redirect URI is compared as an exact string (RFC 9700 §2.1), so "*" is no wildcard; list each URI the client uses, such as "https://app.example.com/callback"'],
    ['an upper-case scheme and host', 'HTTP://LOCALHOST:3000/cb', 'a redirect URI is compared as an exact string (RFC 9700 §2.1) and must be written as a browser sends it back; write "http://localhost:3000/cb"'],
    ['no "//" after the scheme', 'https:app.example.com/cb', 'a redirect URI is compared as an exact string (RFC 9700 §2.1) and must be written as a browser sends it back; write "https://app.example.com/cb"'],
    ['a custom scheme that is not a reversed domain name', 'myapp:/callback', 'a custom URI scheme must be a reversed domain name you control, such as "com.example.app:/callback" (RFC 8252 §7.1); for a web address write "https://"'],
    ['an upper-case custom scheme', 'Com.Example.App:/cb', 'a redirect URI is compared as an exact string (RFC 9700 §2.1) and must be written as a browser sends it back; write "com.example.app:/cb"'],
  ])('refuses %s with what to write instead', (_case, uri, message) => {
    expect(validateUserConfig(configWith({ redirectUris: [uri] }))).toEqual([`clients[0].redirectUris[0]: ${message}`]);
  });

  it('accepts what RFC 8252 and RFC 9700 allow', () => {
    expect(validateUserConfig(configWith({
      redirectUris: ['https://app.example.com/callback', 'http://127.0.0.1:8080/cb', 'http://[::1]/cb', 'http://localhost:3000/cb', 'com.example.app:/oauth2redirect', 'com.example.app://callback', 'https://app.example.com/cb?tenant=a%20b'],
      postLogoutRedirectUris: ['https://app.example.com/'],
    }))).toEqual([]);
  });
});
