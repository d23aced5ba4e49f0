/**
 * GET /.well-known/openid-configuration (OpenID Connect Discovery 1.0, RFC 8414). The document
 * depends only on config and loaded plugins, so it is serialized once at start-up.
 */
import type { ResolvedConfig } from '../config/schema.js';
import type { EndpointUrls, JsonValue } from '../sdk/contracts.js';
import type { PluginRegistry } from '../plugin-host/plugin-registry.js';

export function buildDiscoveryDocument(config: ResolvedConfig, urls: EndpointUrls, registry: PluginRegistry): string {
  const authMethods = registry.secretParsers.map((p) => p.authenticationMethod);
  const metadata: Record<string, JsonValue> = {};
  for (const parser of registry.secretParsers) Object.assign(metadata, parser.discoveryMetadata ?? {});
  const scopes = [
    ...config.identityResources.map((r) => r.name),
    ...config.apiScopes.map((s) => s.name),
    ...(config.clients.some((c) => c.allowOfflineAccess) ? ['offline_access'] : []),
  ];
  const withNone = config.clients.some((c) => !c.requireClientSecret) ? [...authMethods, 'none'] : authMethods;
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
    id_token_signing_alg_values_supported: ['RS256'],
    response_types_supported: ['token'],
  };
  const signingAlgs = metadata.token_endpoint_auth_signing_alg_values_supported;
  if (signingAlgs !== undefined) {
    doc.introspection_endpoint_auth_signing_alg_values_supported = signingAlgs;
    doc.revocation_endpoint_auth_signing_alg_values_supported = signingAlgs;
  }
  return JSON.stringify(doc);
}
