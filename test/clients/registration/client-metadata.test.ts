/**
 * RFC 7591 client metadata both ways, with plain values: what a registration asks for becomes a
 * client definition under the deployment's policy (or the RFC 7591 §3.2.2 error), and a stored
 * definition becomes the metadata a registration answers with (§3.2.1). Read back and sent
 * again (RFC 7592 §2.2), metadata must mean the same client.
 */
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/config/resolve.js';
import { OAuthError } from '../../../src/oauth/errors.js';
import { definitionFromMetadata, metadataOf, type OfferedMetadata } from '../../../src/clients/registration/client-metadata.js';
import { registeredDefinition } from '../../../src/clients/registration/registrant-fields.js';

const policy = resolveConfig({ registration: { enabled: true, allowedScopes: ['openid', 'profile', 'api.read'] } }, '/').registration;
/** A policy that lets clients have refresh tokens (offline_access, and so the refresh_token grant). */
const offline = { ...policy, allowedScopes: [...policy.allowedScopes, 'offline_access'] };
/** The native-app policy: http on a loopback address too (RFC 8252 §7.3). */
const native = { ...policy, redirectUris: 'https-or-loopback' as const };
const offered: OfferedMetadata = { idTokenAlgorithms: ['RS256', 'ES256'], certificateBoundTokens: false };
const web = { redirect_uris: ['https://app.example/cb'] };

function refusal(body: Record<string, unknown>, p = policy, o = offered) {
  try {
    definitionFromMetadata(body, p, o);
  } catch (err) {
    expect(err).toBeInstanceOf(OAuthError);
    return { status: (err as OAuthError).status, ...(err as OAuthError).toJSON() };
  }
  throw new Error('expected a refusal');
}

describe('definitionFromMetadata', () => {
  it('gives a client with only redirect_uris the code grant, every allowed scope, and no pinned auth method', () => {
    expect(definitionFromMetadata(web, policy, offered)).toEqual({
      allowedGrantTypes: ['authorization_code'],
      allowedScopes: ['openid', 'profile', 'api.read'],
      redirectUris: ['https://app.example/cb'],
    });
  });

  it('maps every supported member to its config field', () => {
    expect(definitionFromMetadata({
      ...web, client_name: 'My App', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], scope: 'openid api.read',
      token_endpoint_auth_method: 'client_secret_post', id_token_signed_response_alg: 'ES256', dpop_bound_access_tokens: true, logo_uri: 'ignored',
    }, offline, offered)).toEqual({
      clientName: 'My App', allowedGrantTypes: ['authorization_code', 'refresh_token'], allowedScopes: ['openid', 'api.read'], allowOfflineAccess: true,
      redirectUris: ['https://app.example/cb'], tokenEndpointAuthMethods: ['client_secret_post'], allowedIdentityTokenSigningAlgorithms: ['ES256'],
      requireDPoP: true,
    });
  });

  it('makes a public client of token_endpoint_auth_method none when the policy allows it', () => {
    const open = { ...policy, allowedAuthMethods: ['none'] };
    expect(definitionFromMetadata({ ...web, token_endpoint_auth_method: 'none' }, open, offered)).toMatchObject({ tokenEndpointAuthMethods: ['none'], requireClientSecret: false });
  });

  it('gives offline_access as allowOfflineAccess, never as a scope', () => {
    const definition = definitionFromMetadata({ ...web, scope: 'openid offline_access' }, offline, offered);
    expect(definition).toMatchObject({ allowedScopes: ['openid'], allowOfflineAccess: true });
  });

  it('registers a client_credentials client without redirect URIs or response types', () => {
    expect(definitionFromMetadata({ grant_types: ['client_credentials'], scope: 'api.read' }, policy, offered))
      .toEqual({ allowedGrantTypes: ['client_credentials'], allowedScopes: ['api.read'] });
  });

  describe('policy refusals', () => {
    const metadata = (description: string) => ({ status: 400, error: 'invalid_client_metadata', error_description: description });
    const redirect = (description: string) => ({ status: 400, error: 'invalid_redirect_uri', error_description: description });

    it('refuses a grant type the policy does not allow, naming the allowed ones', () => {
      expect(refusal({ ...web, grant_types: ['authorization_code', 'password'] }))
        .toEqual(metadata('A requested grant type is not allowed here (allowed: authorization_code, refresh_token, client_credentials).'));
    });

    it('refuses an auth method the policy does not allow, the default one included', () => {
      expect(refusal({ ...web, token_endpoint_auth_method: 'private_key_jwt' }))
        .toEqual(metadata('The token endpoint auth method is not allowed here (allowed: client_secret_basic, client_secret_post).'));
      expect(refusal(web, { ...policy, allowedAuthMethods: ['private_key_jwt'] }))
        .toEqual(metadata('The token endpoint auth method is not allowed here (allowed: private_key_jwt).'));
    });

    it('refuses a scope outside the policy, and a client left with no scope', () => {
      expect(refusal({ ...web, scope: 'openid admin' })).toEqual(metadata('A requested scope is not allowed here.'));
      expect(refusal({ ...web, scope: 'offline_access' }, offline)).toEqual(metadata('The client needs at least one scope.'));
      expect(refusal(web, { ...policy, allowedScopes: [] })).toEqual(metadata('The client needs at least one scope.'));
    });

    it('refuses response types other than code, and response and grant types that disagree', () => {
      expect(refusal({ ...web, response_types: ['token'] })).toEqual(metadata('Only the response type code is supported.'));
      expect(refusal({ grant_types: ['client_credentials'], response_types: ['code'], ...web }))
        .toEqual(metadata('response_types code and grant_types authorization_code go together.'));
    });

    it('refuses redirect URIs outside the policy with invalid_redirect_uri', () => {
      expect(refusal({ redirect_uris: ['http://app.example/cb'] }, native)).toEqual(redirect('Redirect URIs must use https, or http on a loopback address.'));
      expect(refusal({ redirect_uris: ['http://127.0.0.1:8080/cb'] })).toEqual(redirect('Redirect URIs must use https.'));
      expect(refusal({ redirect_uris: ['https://app.example/cb#frag'] })).toEqual(redirect('A redirect URI must not have a fragment.'));
      expect(refusal({ redirect_uris: ['/cb'] })).toEqual(redirect('A redirect URI is not an absolute URI.'));
      expect(refusal({})).toEqual(redirect('redirect_uris is required for the authorization_code grant.'));
    });

    it('accepts http on a loopback address under https-or-loopback', () => {
      expect(definitionFromMetadata({ redirect_uris: ['http://127.0.0.1:8080/cb', 'http://localhost/cb'] }, native, offered))
        .toMatchObject({ redirectUris: ['http://127.0.0.1:8080/cb', 'http://localhost/cb'] });
    });

    it('refuses an ID token algorithm the service does not sign with, none included', () => {
      expect(refusal({ ...web, id_token_signed_response_alg: 'none' })).toEqual(metadata('id_token_signed_response_alg must be one of RS256, ES256.'));
    });

    it('refuses certificate-bound tokens without mutual TLS, and accepts them with it', () => {
      expect(refusal({ ...web, tls_client_certificate_bound_access_tokens: true }))
        .toEqual(metadata('tls_client_certificate_bound_access_tokens needs mutual TLS, which this server does not offer.'));
      expect(definitionFromMetadata({ ...web, tls_client_certificate_bound_access_tokens: true }, policy, { ...offered, certificateBoundTokens: true }))
        .toMatchObject({ requireCertificateBoundTokens: true });
    });

    it('refuses values of the wrong type', () => {
      expect(refusal({ redirect_uris: 'https://app.example/cb' })).toEqual(metadata('redirect_uris must be an array of at most 20 non-empty strings.'));
      expect(refusal({ ...web, dpop_bound_access_tokens: 'yes' })).toEqual(metadata('dpop_bound_access_tokens must be true or false.'));
      expect(refusal({ ...web, client_name: '' })).toEqual(metadata('client_name must be a non-empty string of at most 200 characters.'));
      expect(refusal({ ...web, redirect_uris: Array.from({ length: 21 }, (_, i) => `https://app.example/${i}`) }))
        .toEqual(metadata('redirect_uris must be an array of at most 20 non-empty strings.'));
    });

    it('refuses software statements: a malformed one as invalid, a JWT as unapproved', () => {
      expect(refusal({ ...web, software_statement: 'not a jwt' })).toMatchObject({ error: 'invalid_software_statement' });
      expect(refusal({ ...web, software_statement: 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln' })).toMatchObject({ error: 'unapproved_software_statement' });
    });
  });
});

describe('metadataOf', () => {
  it('answers with the RFC 7591 names of what is stored, and the defaults a client gets', () => {
    expect(metadataOf('c-1', { allowedGrantTypes: ['authorization_code'], allowedScopes: ['openid', 'api.read'], redirectUris: ['https://app.example/cb'] })).toEqual({
      client_id: 'c-1', grant_types: ['authorization_code'], response_types: ['code'], redirect_uris: ['https://app.example/cb'],
      token_endpoint_auth_method: 'client_secret_basic', scope: 'openid api.read', id_token_signed_response_alg: 'RS256', dpop_bound_access_tokens: false,
      require_signed_request_object: false,
    });
  });

  it('lists offline_access in scope, the pinned method, the ID token algorithm and the bindings', () => {
    expect(metadataOf('c-2', {
      clientName: 'My App', allowedGrantTypes: ['client_credentials'], allowedScopes: ['api.read'], allowOfflineAccess: true,
      tokenEndpointAuthMethods: ['client_secret_post'], requireDPoP: true, requireCertificateBoundTokens: true, requireRequestObject: true,
    })).toEqual({
      client_id: 'c-2', client_name: 'My App', grant_types: ['client_credentials'], response_types: [], redirect_uris: [],
      token_endpoint_auth_method: 'client_secret_post', scope: 'api.read offline_access', dpop_bound_access_tokens: true,
      tls_client_certificate_bound_access_tokens: true, require_signed_request_object: true,
    });
  });
});

describe('round trip (RFC 7592 §2.2: a client sends back the metadata it read)', () => {
  const bodies: Record<string, Record<string, unknown>> = {
    'a full web client': {
      ...web, client_name: 'My App', grant_types: ['authorization_code', 'refresh_token'], scope: 'openid profile', token_endpoint_auth_method: 'client_secret_post',
      id_token_signed_response_alg: 'ES256', dpop_bound_access_tokens: true, require_signed_request_object: true,
    },
    'a machine client': { grant_types: ['client_credentials'], scope: 'api.read', token_endpoint_auth_method: 'client_secret_basic' },
  };

  it.each(Object.entries(bodies))('gives the same metadata when %s sends back what it read', (_name, body) => {
    const first = metadataOf('c', definitionFromMetadata(body, offline, offered));
    const second = metadataOf('c', definitionFromMetadata(first, offline, offered));
    expect(second).toEqual(first);
  });

  it.each(Object.entries(bodies))('gives the same definition when %s sends back what it read', (_name, body) => {
    const definition = definitionFromMetadata(body, offline, offered);
    expect(definitionFromMetadata(metadataOf('c', definition), offline, offered)).toEqual(definition);
  });

  it('keeps a client that named no auth method unpinned when it sends back what it read', () => {
    const definition = registeredDefinition(definitionFromMetadata({ grant_types: ['client_credentials'], scope: 'api.read' }, policy, offered));
    expect(definition).not.toHaveProperty('tokenEndpointAuthMethods');
    const again = registeredDefinition(definitionFromMetadata(metadataOf('c', definition), policy, offered), definition);
    expect(again).not.toHaveProperty('tokenEndpointAuthMethods');
    // A client that names the method itself is pinned to it.
    const pinned = registeredDefinition(definitionFromMetadata({ grant_types: ['client_credentials'], scope: 'api.read', token_endpoint_auth_method: 'client_secret_post' }, policy, offered), definition);
    expect(pinned).toMatchObject({ tokenEndpointAuthMethods: ['client_secret_post'] });
  });
});
