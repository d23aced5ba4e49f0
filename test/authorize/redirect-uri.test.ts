/** Redirect URI matching: exact strings (RFC 9700 §2.1), loopback IPs in any port (RFC 8252 §7.3). */
import { describe, expect, it } from 'vitest';
import { isRegisteredRedirectUri } from '../../src/authorize/redirect-uri.js';
import { resolveConfig } from '../../src/config/resolve.js';

const [client] = resolveConfig({
  clients: [{
    clientId: 'app', requireClientSecret: false, allowedGrantTypes: ['authorization_code'], allowedScopes: [],
    redirectUris: ['https://app.example.com/cb', 'http://127.0.0.1/native', 'http://[::1]:8080/v6', 'http://localhost/named', 'com.example.app:/cb'],
  }],
}, '/').clients;

describe('isRegisteredRedirectUri', () => {
  it.each([
    ['https://app.example.com/cb', true],
    ['https://app.example.com/cb/', false],
    ['https://APP.example.com/cb', false],
    ['https://app.example.com/cb?x=1', false],
    ['https://app.example.com:443/cb', false],
    ['http://127.0.0.1/native', true],
    ['http://127.0.0.1:51004/native', true],
    ['http://127.0.0.1:51004/native/extra', false],
    ['http://127.0.0.1:51004/native?x', false],
    ['https://127.0.0.1:51004/native', false],
    ['http://[::1]:9999/v6', true],
    // RFC 8252 §8.3: localhost is not an IP literal; it stays exact.
    ['http://localhost:1234/named', false],
    ['http://localhost/named', true],
    ['com.example.app:/cb', true],
    ['com.example.app:/other', false],
  ])('%s: %s', (uri, expected) => {
    expect(isRegisteredRedirectUri(client!, uri)).toBe(expected);
  });
});
