import { describe, expect, it } from 'vitest';
import { adminSetupWarnings } from '../../src/admin/setup-warnings.js';

const resource = { name: 'svc-admin', scopes: ['admin', 'admin.read'], secrets: [] };

describe('the admin API\'s set-up warnings', () => {
  it('says nothing on loopback with the svc-admin resource', () => {
    expect(adminSetupWarnings('127.0.0.1', resource)).toEqual([]);
    expect(adminSetupWarnings('::1', { ...resource, scopes: ['admin.read'] })).toEqual([]);
    expect(adminSetupWarnings('localhost', resource)).toEqual([]);
  });

  it('warns of a listener beyond loopback, and of no resource whose token could call it', () => {
    expect(adminSetupWarnings('0.0.0.0', resource)).toEqual([
      'the admin API listens on 0.0.0.0, beyond loopback, in plain HTTP: keep it where only operators reach it, behind their own TLS (docs/guides/admin-api.md)',
    ]);
    const none = 'no API resource "svc-admin" with scope "admin" or "admin.read": no token can call the admin API (docs/guides/admin-api.md, "The admin client")';
    expect(adminSetupWarnings('127.0.0.1', undefined)).toEqual([none]);
    expect(adminSetupWarnings('127.0.0.1', { ...resource, scopes: ['other'] })).toEqual([none]);
  });

  it('says neither behind mutual TLS (admin.tls): the listener is HTTPS and certificates are the credentials', () => {
    expect(adminSetupWarnings('0.0.0.0', undefined, true)).toEqual([]);
  });
});
