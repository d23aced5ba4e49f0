/**
 * Issue 39: the flags of `svc clients` / `svc apis` come from the config's declaration, so every
 * field has one; only the fields whose value is an object (or the id) are left to
 * `--definition` and the secret commands.
 */
import { describe, expect, it } from 'vitest';
import { fieldFlags, fieldsFromFlags, inFlagWords } from '../../src/cli/field-flags.js';
import { apiResourceSchema, clientSchema } from '../../src/config/model.js';

describe('field flags', () => {
  it('cover every client field but the id, the secrets and the free-form properties', () => {
    const flagged = new Set(fieldFlags.client.map((f) => f.field));
    expect(Object.keys(clientSchema.shape).filter((field) => !flagged.has(field)).sort()).toEqual(['clientId', 'clientSecrets', 'properties']);
    expect(Object.keys(apiResourceSchema.shape).filter((field) => !fieldFlags.apiResource.some((f) => f.field === field)).sort()).toEqual(['name', 'secrets']);
  });

  it('are named after the field, one item of a list at a time, the old short names kept', () => {
    const byField = Object.fromEntries(fieldFlags.client.map((f) => [f.field, `${f.flag}:${f.kind}`]));
    expect(byField).toMatchObject({
      allowOfflineAccess: 'allow-offline-access:boolean', requireDPoP: 'require-dpop:boolean', accessTokenLifetime: 'access-token-lifetime:number',
      postLogoutRedirectUris: 'post-logout-redirect-uri:list', allowedCorsOrigins: 'allowed-cors-origin:list', accessTokenType: 'access-token-type:text',
      allowedGrantTypes: 'grant:list', allowedScopes: 'scope:list', redirectUris: 'redirect-uri:list', clientName: 'name:text',
    });
  });

  it('turn into the fields they set, and nothing for flags not given', () => {
    expect(fieldsFromFlags('client', { 'allow-offline-access': true, 'no-require-pkce': true, 'access-token-lifetime': '90', scope: ['a', 'b'] }))
      .toEqual({ allowOfflineAccess: true, requirePkce: false, accessTokenLifetime: 90, allowedScopes: ['a', 'b'] });
    expect(fieldsFromFlags('apiResource', { scope: ['a'] })).toEqual({ scopes: ['a'] });
  });

  it('word a problem with what was typed', () => {
    expect(inFlagWords('client', 'client "x".allowedScopes[1]: unknown scope "b"', { scope: ['a', 'b'] })).toBe('--scope b: unknown scope "b"');
    expect(inFlagWords('client', 'client "x".accessTokenLifetime: too long', {})).toBe('client "x".accessTokenLifetime: too long');
    expect(inFlagWords('client', 'client "x".allowedScopes[0]: set allowOfflineAccess: true instead', { scope: ['offline_access'] }))
      .toBe('--scope offline_access: set --allow-offline-access instead');
  });
});
