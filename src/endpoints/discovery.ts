/**
 * GET /.well-known/openid-configuration (OpenID Connect Discovery 1.0, RFC 8414). The document
 * depends on config, loaded plugins and two facts over the enabled clients (is one public, may
 * one ask for `offline_access`); it is serialized at start-up and again only when a client
 * store's reload changed those facts (issue 19), so a stored public client makes `none` appear.
 */
import { acrValuesSupported } from '../authorize/acr.js';
import type { ResolvedConfig } from '../config/schema.js';
import type { EndpointUrls, JsonValue } from '../sdk/contracts.js';
import type { PluginRegistry } from '../plugin-host/plugin-registry.js';
import { paths } from './urls.js';
import { receivesClientCertificates } from '../config/tls-material.js';
import type { ClientFacts } from '../clients/client-directory.js';
import { responseModesSupported } from '../authorize/authorization-request.js';

/**
 * RFC 8705 §5: where a client using mutual TLS sends its requests. The same URLs when the
 * issuer's host asks for certificates; another host's when `mtls.endpointAliasesBaseUrl` says so.
 */
function mtlsEndpointAliases(base: string): Record<string, JsonValue> {
  return {
    token_endpoint: base + paths.token,
    introspection_endpoint: base + paths.introspection,
    revocation_endpoint: base + paths.revocation,
    device_authorization_endpoint: base + paths.deviceAuthorization,
    pushed_authorization_request_endpoint: base + paths.par,
    // UserInfo checks the binding of certificate-bound tokens, so a client reaches it with its certificate.
    userinfo_endpoint: base + paths.userinfo,
  };
}

/** The document for the current facts, re-serialized only when the directory handed out new facts. */
export function discoveryDocument(config: ResolvedConfig, urls: EndpointUrls, registry: PluginRegistry, facts: () => ClientFacts): () => string {
  let seen: Pick<ClientFacts, 'anyPublicClient' | 'anyOfflineAccess'> | undefined;
  let json = '';
  return () => {
    const now = facts();
    if (now !== seen) {
      if (seen === undefined || now.anyPublicClient !== seen.anyPublicClient || now.anyOfflineAccess !== seen.anyOfflineAccess) {
        json = buildDiscoveryDocument(config, urls, registry, now);
      }
      seen = now;
    }
    return json;
  };
}

export function buildDiscoveryDocument(
  config: ResolvedConfig, urls: EndpointUrls, registry: PluginRegistry,
  facts: Pick<ClientFacts, 'anyPublicClient' | 'anyOfflineAccess'> = {
    anyPublicClient: config.clients.some((c) => !c.requireClientSecret),
    anyOfflineAccess: config.clients.some((c) => c.allowOfflineAccess),
  },
): string {
  const mtls = receivesClientCertificates(config);
  // A method that reads the TLS client certificate is offered only when a certificate can arrive.
  const parsers = registry.secretParsers.filter((p) => mtls || p.fromConnection !== true);
  const authMethods = parsers.map((p) => p.authenticationMethod);
  const metadata: Record<string, JsonValue> = {};
  for (const parser of parsers) Object.assign(metadata, parser.discoveryMetadata ?? {});
  const scopes = [
    ...config.identityResources.map((r) => r.name),
    ...config.apiScopes.map((s) => s.name),
    ...(facts.anyOfflineAccess ? ['offline_access'] : []),
  ];
  // Issue 36: a document's client and an openly registered one are public clients.
  const documents = config.clientIdMetadataDocuments.enabled;
  const publicClients = facts.anyPublicClient || documents || (config.registration.enabled && config.registration.policy === 'open');
  const withNone = publicClients ? [...authMethods, 'none'] : authMethods;
  const requestObjects = registry.clientSignatureVerifiers.length > 0;
  // Plugin metadata first: it adds members, it never overrides the core's.
  const doc: Record<string, JsonValue> = {
    ...metadata,
    issuer: config.issuer,
    jwks_uri: urls.jwks,
    token_endpoint: urls.token,
    introspection_endpoint: urls.introspection,
    revocation_endpoint: urls.revocation,
    device_authorization_endpoint: urls.deviceAuthorization,
    grant_types_supported: [...registry.grants.keys()],
    token_endpoint_auth_methods_supported: withNone,
    introspection_endpoint_auth_methods_supported: authMethods,
    revocation_endpoint_auth_methods_supported: withNone,
    scopes_supported: scopes,
    claims_supported: [...new Set(['sub', ...config.identityResources.flatMap((r) => r.claims)])],
    subject_types_supported: ['public'],
    // Issue 35: the service's own classes (`authorize/acr.ts`); `claims` only for an `acr` request.
    acr_values_supported: [...acrValuesSupported],
    id_token_signing_alg_values_supported: [...config.signing.idTokenAlgorithms],
    // RFC 9700 §2.1.2: the code flow only; RFC 7636 with S256 only; RFC 9207 iss in every response.
    response_types_supported: ['code'],
    // JARM §3: `jwt`, `query.jwt` and `form_post.jwt` beside the plain modes.
    response_modes_supported: [...responseModesSupported],
    authorization_signing_alg_values_supported: [...new Set([config.signing.accessTokenAlgorithm, ...config.signing.idTokenAlgorithms])],
    authorization_endpoint: config.issuer + paths.authorize,
    code_challenge_methods_supported: ['S256'],
    authorization_response_iss_parameter_supported: true,
    userinfo_endpoint: config.issuer + paths.userinfo,
    end_session_endpoint: config.issuer + paths.endSession,
    pushed_authorization_request_endpoint: config.issuer + paths.par,
    ...(config.registration.enabled ? { registration_endpoint: config.issuer + paths.register } : {}),
    // draft-ietf-oauth-client-id-metadata-document-03 §6 (authorization server metadata).
    ...(documents ? { client_id_metadata_document_supported: true } : {}),
    // FAPI 2.0 for every client (issue 37): PAR only (SP §5.3.2.2), and signed request objects under Message Signing (MS §5.3).
    require_pushed_authorization_requests: config.fapi2 !== 'off',
    prompt_values_supported: ['none', 'login', 'consent'],
    // OIDC Core §5.5: read for its `acr` request only (issue 35); other claims requests are voluntary and ignored.
    claims_parameter_supported: true,
    // RFC 9101 §10.5 and OIDC Discovery §3: request objects by value, verified with a plugin's client keys.
    request_parameter_supported: requestObjects,
    ...(requestObjects ? { request_object_signing_alg_values_supported: [...config.requestObjects.signingAlgValues] } : {}),
    require_signed_request_object: config.requestObjects.required || config.fapi2 === 'message-signing',
    request_uri_parameter_supported: false,
    // RFC 9449 §5.1: DPoP proofs are accepted at the token endpoint and at UserInfo.
    dpop_signing_alg_values_supported: [...config.dpop.signingAlgValues],
    // RFC 9701 §7: what an API's JWT introspection answers may be signed with (the service's keys).
    // OpenID Connect Back-Channel Logout 1.0 §2.1: logout tokens carry `sid` (and `sub`) always.
    backchannel_logout_supported: true,
    backchannel_logout_session_supported: true,
    introspection_signing_alg_values_supported: [...new Set([config.signing.accessTokenAlgorithm, ...config.signing.idTokenAlgorithms])],
  };
  if (mtls) {
    doc.tls_client_certificate_bound_access_tokens = true;
    doc.mtls_endpoint_aliases = mtlsEndpointAliases(config.mtls.endpointAliasesBaseUrl);
  }
  const signingAlgs = metadata.token_endpoint_auth_signing_alg_values_supported;
  if (signingAlgs !== undefined) {
    doc.introspection_endpoint_auth_signing_alg_values_supported = signingAlgs;
    doc.revocation_endpoint_auth_signing_alg_values_supported = signingAlgs;
  }
  return JSON.stringify(doc);
}
