/**
 * FAPI 2.0 profile, the rules that are config (`src/config/fapi2-profile.ts`): a client under the
 * profile that breaks one stops start-up, the message naming the client, the field and the rule's
 * section. One test per rule, and a client that meets them all.
 */
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/resolve.js';
import { validateUserConfig } from '../../src/config/validate.js';
import type { ClientConfig, UserConfig } from '../../src/config/schema.js';
import {
  checkFapi2AuthorizationRequest, checkFapi2DpopAlgorithm, checkFapi2RequestObjectAlgorithm, fapi2SenderConstraint, rotatesRefreshTokens,
} from '../../src/config/fapi2-profile.js';

const certificate = { type: 'X509CertificateBase64', value: 'MIIB' };
/** A client that meets every rule. */
const bank: ClientConfig = {
  clientId: 'bank',
  clientSecrets: [certificate],
  tokenEndpointAuthMethods: ['private_key_jwt'],
  allowedGrantTypes: ['authorization_code'],
  allowedScopes: ['openid'],
  redirectUris: ['https://bank.example.com/cb'],
  authorizationCodeLifetime: 60,
  allowedIdentityTokenSigningAlgorithms: ['PS256'],
  authorizationSignedResponseAlg: 'PS256',
};
const base = {
  issuer: 'https://as.example.com',
  identityResources: [{ name: 'openid', claims: ['sub'] }],
  signing: { idTokenAlgorithms: ['RS256', 'PS256'] },
} satisfies UserConfig;
const under = (client: Partial<ClientConfig>, more: Partial<UserConfig> = {}): string[] =>
  validateUserConfig({ ...base, fapi2: 'security', clients: [{ ...bank, ...client }], ...more });

describe('FAPI 2.0 profile at start-up', () => {
  it('accepts a client that meets every rule, and fills the global profile into it', () => {
    expect(under({})).toEqual([]);
    const resolved = resolveConfig({ ...base, fapi2: 'message-signing', clients: [bank, { ...bank, clientId: 'other', fapi2: 'security' }] }, '/');
    expect(resolved.clients.map((c) => c.fapi2)).toEqual(['message-signing', 'security']);
    expect(resolveConfig({ ...base, clients: [bank] }, '/').clients[0]!.fapi2).toBeUndefined();
  });

  it('leaves a client out that says fapi2: "off", and checks one that turns it on alone', () => {
    expect(under({ fapi2: 'off', authorizationCodeLifetime: 300 })).toEqual([]);
    expect(validateUserConfig({ ...base, clients: [{ ...bank, fapi2: 'security', authorizationCodeLifetime: 300 }] })).toEqual([
      'clients[0].authorizationCodeLifetime: client "bank" (FAPI 2.0 security, SP §5.3.2.2): authorization codes live at most 60 s: set authorizationCodeLifetime to 60 or less, got 300',
    ]);
  });

  it('SP §5.3.2.1: only confidential clients', () => {
    expect(under({ requireClientSecret: false, tokenEndpointAuthMethods: ['private_key_jwt'] })).toContain(
      'clients[0].requireClientSecret: client "bank" (FAPI 2.0 security, SP §5.3.2.1): only confidential clients: remove requireClientSecret: false',
    );
  });

  it('SP §5.3.2.1: no resource owner password credentials grant', () => {
    expect(under({ allowedGrantTypes: ['authorization_code', 'password'] })).toEqual([
      'clients[0].allowedGrantTypes: client "bank" (FAPI 2.0 security, SP §5.3.2.1): the resource owner password credentials grant is not allowed: remove "password"',
    ]);
  });

  it('SP §5.3.2.1: private_key_jwt or mutual TLS only, listed', () => {
    expect(under({ tokenEndpointAuthMethods: ['private_key_jwt', 'client_secret_basic'] })).toEqual([
      'clients[0].tokenEndpointAuthMethods: client "bank" (FAPI 2.0 security, SP §5.3.2.1): "client_secret_basic" not allowed: clients authenticate with private_key_jwt, tls_client_auth, self_signed_tls_client_auth only',
    ]);
    expect(under({ tokenEndpointAuthMethods: undefined })).toEqual([
      'clients[0].tokenEndpointAuthMethods: client "bank" (FAPI 2.0 security, SP §5.3.2.1): list the client\'s authentication methods, only private_key_jwt, tls_client_auth, self_signed_tls_client_auth',
    ]);
    expect(under({ tokenEndpointAuthMethods: ['tls_client_auth'] })).toEqual([]);
  });

  it('SP §5.3.2.2: PKCE stays required', () => {
    expect(under({ requirePkce: false })).toEqual([
      'clients[0].requirePkce: client "bank" (FAPI 2.0 security, SP §5.3.2.2): PKCE with S256 is required: remove requirePkce: false',
    ]);
  });

  it('SP §5.3.2.2: https redirect URIs only', () => {
    expect(under({ redirectUris: ['https://bank.example.com/cb', 'http://127.0.0.1/cb'] })).toEqual([
      'clients[0].redirectUris: client "bank" (FAPI 2.0 security, SP §5.3.2.2): redirect URIs must be https, got "http://127.0.0.1/cb"',
    ]);
  });

  it('SP §5.3.2.2: codes live 60 s at most, and the default 300 s is too long', () => {
    expect(under({ authorizationCodeLifetime: 61 })).toEqual([
      'clients[0].authorizationCodeLifetime: client "bank" (FAPI 2.0 security, SP §5.3.2.2): authorization codes live at most 60 s: set authorizationCodeLifetime to 60 or less, got 61',
    ]);
    expect(under({ authorizationCodeLifetime: undefined })).toEqual([
      'clients[0].authorizationCodeLifetime: client "bank" (FAPI 2.0 security, SP §5.3.2.2): authorization codes live at most 60 s: set authorizationCodeLifetime to 60 or less, got 300 (the default)',
    ]);
  });

  it('SP §5.4: ID tokens, JARM responses and access tokens signed with PS256, ES256 or EdDSA only', () => {
    expect(under({ allowedIdentityTokenSigningAlgorithms: [] })).toEqual([
      'clients[0].allowedIdentityTokenSigningAlgorithms: client "bank" (FAPI 2.0 security, SP §5.4): ID tokens must be signed with PS256, ES256, EdDSA: put one first (and in signing.idTokenAlgorithms), got RS256 (the default)',
    ]);
    expect(under({ allowedIdentityTokenSigningAlgorithms: ['RS256'] })).toEqual([
      'clients[0].allowedIdentityTokenSigningAlgorithms: client "bank" (FAPI 2.0 security, SP §5.4): ID tokens must be signed with PS256, ES256, EdDSA: put one first (and in signing.idTokenAlgorithms), got "RS256"',
    ]);
    expect(under({ authorizationSignedResponseAlg: undefined })).toEqual([
      'clients[0].authorizationSignedResponseAlg: client "bank" (FAPI 2.0 security, SP §5.4): signed authorization responses (JARM) must use PS256, ES256, EdDSA, got RS256 (the default)',
    ]);
    expect(under({}, { signing: { idTokenAlgorithms: ['RS256', 'PS256'], accessTokenAlgorithm: 'RS256' } })).toEqual([
      'signing.accessTokenAlgorithm: FAPI 2.0 (SP §5.4): access tokens must be signed with PS256, ES256, EdDSA, got "RS256"',
    ]);
  });

  it('MS §5.5 and SP §5.4: under a global profile, an API that introspects gets signed answers with a FAPI algorithm', () => {
    const api = { name: 'accounts', scopes: [], secrets: [{ value: 'x' }] };
    expect(under({}, { apiResources: [api] })).toEqual([
      'apiResources[0].introspectionSigningAlgorithm: API resource "accounts" (FAPI 2.0 security, SP §5.4): signed introspection answers must use PS256, ES256, EdDSA, got RS256 (the default)',
    ]);
    expect(validateUserConfig({ ...base, fapi2: 'message-signing', clients: [bank], apiResources: [{ ...api, introspectionSigningAlgorithm: 'RS256' }] })).toEqual([
      'apiResources[0].introspectionSigningAlgorithm: API resource "accounts" (FAPI 2.0 message-signing, MS §5.5, SP §5.4): signed introspection answers must use PS256, ES256, EdDSA, got "RS256"',
    ]);
    expect(under({}, { apiResources: [{ ...api, introspectionSigningAlgorithm: 'PS256' }] })).toEqual([]);
  });

  it('refuses an unknown profile name', () => {
    expect(validateUserConfig({ ...base, fapi2: 'on' })).toEqual(['fapi2: unknown value "on" (allowed: off, security, message-signing)']);
  });
});

describe('FAPI 2.0 profile on the wire: the rules as plain functions', () => {
  const security = { clientId: 'bank', fapi2: 'security' as const };
  const signing = { clientId: 'bank', fapi2: 'message-signing' as const };
  const off = { clientId: 'web', fapi2: undefined };
  const refusal = (fn: () => unknown): { code?: string; description?: string } => {
    try {
      fn();
    } catch (err) {
      return { code: (err as { code: string }).code, description: (err as { description: string }).description };
    }
    return {};
  };

  it('authorization requests: PAR under the profile; a signed request object and a JARM mode under Message Signing', () => {
    expect(refusal(() => checkFapi2AuthorizationRequest(security, { pushed: false, signed: true, responseMode: 'jwt' }))).toEqual({
      code: 'invalid_request', description: 'This client must use pushed authorization requests (FAPI 2.0).',
    });
    expect(refusal(() => checkFapi2AuthorizationRequest(security, { pushed: true, signed: false, responseMode: undefined }))).toEqual({});
    expect(refusal(() => checkFapi2AuthorizationRequest(signing, { pushed: true, signed: false, responseMode: 'jwt' })).code).toBe('invalid_request');
    expect(refusal(() => checkFapi2AuthorizationRequest(signing, { pushed: true, signed: true, responseMode: 'query' })).code).toBe('invalid_request');
    for (const mode of ['jwt', 'query.jwt', 'form_post.jwt']) {
      expect(refusal(() => checkFapi2AuthorizationRequest(signing, { pushed: true, signed: true, responseMode: mode }))).toEqual({});
    }
    expect(refusal(() => checkFapi2AuthorizationRequest(off, { pushed: false, signed: false, responseMode: undefined }))).toEqual({});
  });

  it('signatures of the client: PS256, ES256, EdDSA (or Ed25519) only, under the profile', () => {
    expect(refusal(() => checkFapi2RequestObjectAlgorithm(security, 'RS256')).code).toBe('invalid_request_object');
    expect(refusal(() => checkFapi2DpopAlgorithm(security, 'ES384')).code).toBe('invalid_dpop_proof');
    for (const alg of ['PS256', 'ES256', 'EdDSA', 'Ed25519']) {
      expect(refusal(() => checkFapi2RequestObjectAlgorithm(security, alg))).toEqual({});
      expect(refusal(() => checkFapi2DpopAlgorithm(security, alg))).toEqual({});
    }
    expect(refusal(() => checkFapi2RequestObjectAlgorithm(off, 'RS256'))).toEqual({});
    expect(refusal(() => checkFapi2DpopAlgorithm(off, 'RS256'))).toEqual({});
  });

  it('token requests: a DPoP proof, else the TLS client certificate binds, else refused', () => {
    expect(fapi2SenderConstraint(security, { dpop: true, certificateThumbprint: 'x5t' })).toBeUndefined();
    expect(fapi2SenderConstraint(security, { dpop: false, certificateThumbprint: 'x5t' })).toEqual({ 'x5t#S256': 'x5t' });
    expect(refusal(() => fapi2SenderConstraint(security, { dpop: false, certificateThumbprint: undefined }))).toEqual({
      code: 'invalid_request', description: 'This client\'s tokens must be sender-constrained: send a DPoP proof or a TLS client certificate (FAPI 2.0).',
    });
    expect(fapi2SenderConstraint(off, { dpop: false, certificateThumbprint: 'x5t' })).toBeUndefined();
  });

  it('refresh tokens rotate except under the profile', () => {
    expect(rotatesRefreshTokens(off)).toBe(true);
    expect(rotatesRefreshTokens({ fapi2: 'off' })).toBe(true);
    expect(rotatesRefreshTokens(security)).toBe(false);
    expect(rotatesRefreshTokens(signing)).toBe(false);
  });
});
