/**
 * The one redirect URI rule of the config, `svc clients` and registration (issue 33): each
 * problem has a code, a message that quotes nothing of the value, and the URI meant when it can
 * be told.
 */
import { describe, expect, it } from 'vitest';
import { redirectUriProblem } from '../../src/config/redirect-uri-rules.js';

const https = { httpsIssuer: true };

describe('redirectUriProblem', () => {
  it.each([
    ['localhost:3000/callback', 'no-scheme', 'http://localhost:3000/callback'],
    ['127.0.0.1:8080/cb', 'no-scheme', 'http://127.0.0.1:8080/cb'],
    ['app.example.com:8443/cb', 'no-scheme', 'https://app.example.com:8443/cb'],
    [' https://app.example.com/cb', 'whitespace', 'https://app.example.com/cb'],
    ['https://app.example.com/a b', 'whitespace', undefined],
    ['https://*.example.com/cb', 'wildcard', undefined],
    ['HTTP://LOCALHOST:3000/cb', 'not-normal', 'http://localhost:3000/cb'],
    ['https://App.Example.com', 'not-normal', 'https://app.example.com'],
    ['myapp://callback', 'custom-scheme', undefined],
    ['javascript:alert(1)', 'scheme-not-allowed', undefined],
    ['https://user:pw@app.example.com/cb', 'user-info', undefined],
    ['http://app.example.com/cb', 'http-not-loopback', undefined],
  ])('%s: %s', (uri, code, suggestion) => {
    const found = redirectUriProblem(uri, https);
    expect(found).toMatchObject({ code });
    expect(found?.suggestion).toBe(suggestion);
    expect(found!.message).not.toContain(uri.trim());
  });

  it.each(['https://app.example.com/cb', 'https://app.example.com', 'http://127.0.0.1/cb', 'http://[::1]:5000/cb', 'com.example.app:/cb', 'com.example.app://cb', 'https://app.example.com/cb?a=1'])(
    '%s is fine', (uri) => expect(redirectUriProblem(uri, https)).toBeUndefined(),
  );
});
