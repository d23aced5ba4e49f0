/**
 * RFC 7591 §2 client metadata to and from a client definition, under the deployment's
 * registration policy (`registration` in the config). Unknown metadata is ignored (§2); a value
 * of the wrong type or outside the policy is `invalid_client_metadata`, a redirect URI outside it
 * `invalid_redirect_uri` (§3.2.2). The definition is then merged with the operator's fields
 * (`registrant-fields.ts`) and checked with the config's own rules.
 */
import type { ResolvedConfig } from '../../config/schema.js';
import { isLoopbackHost, redirectUriProblem } from '../../config/redirect-uri-rules.js';
import { defaultIdTokenAlgorithm } from '../../oauth/id-token-issuer.js';
import { InvalidClientMetadata, InvalidRedirectUri, InvalidSoftwareStatement, UnapprovedSoftwareStatement } from '../../sdk/errors.js';

type Policy = ResolvedConfig['registration'];

const maxString = 2000;
const maxItems = 20;

function stringList(body: Record<string, unknown>, name: string): string[] | undefined {
  const value = body[name];
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.length > maxItems || !value.every((v) => typeof v === 'string' && v.length > 0 && v.length <= maxString)) {
    throw new InvalidClientMetadata(`${name} must be an array of at most ${maxItems} non-empty strings.`);
  }
  return value as string[];
}

function flag(body: Record<string, unknown>, name: string): boolean | undefined {
  const value = body[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'boolean') throw new InvalidClientMetadata(`${name} must be true or false.`);
  return value;
}

function text(body: Record<string, unknown>, name: string, max = maxString): string | undefined {
  const value = body[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length === 0 || value.length > max) throw new InvalidClientMetadata(`${name} must be a non-empty string of at most ${max} characters.`);
  return value;
}

/** RFC 6749 §5.2: an error_description has no `"`, `\` or non-ASCII character. */
function asDescription(message: string): string {
  const text = message.replace(/§/g, 'section ').replace(/"/g, "'");
  return `${text[0]!.toUpperCase()}${text.slice(1)}.`;
}

/**
 * The shared rule first (`redirect-uri-rules.ts`), then the policy: https, and http on a loopback
 * address only under the native-app policy `"https-or-loopback"` (RFC 8252 §7.3). Descriptions
 * never quote the URI.
 */
function checkRedirectUri(uri: string, policy: Policy): void {
  const found = redirectUriProblem(uri, { httpsIssuer: true });
  if (found?.code === 'not-absolute') throw new InvalidRedirectUri('A redirect URI is not an absolute URI.');
  if (found?.code === 'fragment') throw new InvalidRedirectUri('A redirect URI must not have a fragment.');
  const url = found === undefined ? new URL(uri) : undefined;
  if (url?.protocol === 'https:') return;
  if (url?.protocol === 'http:' && policy.redirectUris === 'https-or-loopback' && isLoopbackHost(url.hostname)) return;
  if (found !== undefined && found.code !== 'http-not-loopback' && found.code !== 'custom-scheme') {
    throw new InvalidRedirectUri(asDescription(found.message));
  }
  throw new InvalidRedirectUri(policy.redirectUris === 'https' ? 'Redirect URIs must use https.' : 'Redirect URIs must use https, or http on a loopback address.');
}

/** What the service offers that a client may ask for. */
export interface OfferedMetadata {
  /** `signing.idTokenAlgorithms`. */
  readonly idTokenAlgorithms: readonly string[];
  /** The service receives TLS client certificates, so it can bind tokens to them (RFC 8705 §3). */
  readonly certificateBoundTokens: boolean;
}

/**
 * The definition (config fields) a registration or update asks for; throws the RFC 7591 error
 * when it is not allowed.
 */
export function definitionFromMetadata(body: Record<string, unknown>, policy: Policy, { idTokenAlgorithms, certificateBoundTokens }: OfferedMetadata): Record<string, unknown> {
  const statement = body.software_statement;
  if (statement !== undefined) {
    // RFC 7591 §3.1.1: a software statement is a JWT; this server trusts no statement issuer.
    if (typeof statement !== 'string' || !/^[\w-]+\.[\w-]+\.[\w-]*$/.test(statement)) throw new InvalidSoftwareStatement('The software statement is not a JWT.');
    throw new UnapprovedSoftwareStatement('Software statements are not accepted here.');
  }
  const grantTypes = stringList(body, 'grant_types') ?? ['authorization_code'];
  for (const g of grantTypes) {
    if (!policy.allowedGrantTypes.includes(g)) {
      throw new InvalidClientMetadata(`A requested grant type is not allowed here (allowed: ${policy.allowedGrantTypes.join(', ')}).`, { logDetail: `grant type ${JSON.stringify(g)}` });
    }
  }
  const responseTypes = stringList(body, 'response_types') ?? (grantTypes.includes('authorization_code') ? ['code'] : []);
  for (const r of responseTypes) {
    if (r !== 'code') throw new InvalidClientMetadata('Only the response type code is supported.', { logDetail: `response type ${JSON.stringify(r)}` });
  }
  // RFC 7591 §2.1: response_types and grant_types must agree.
  if (responseTypes.includes('code') !== grantTypes.includes('authorization_code')) {
    throw new InvalidClientMetadata('response_types code and grant_types authorization_code go together.');
  }
  const named = text(body, 'token_endpoint_auth_method', 100);
  // RFC 7591 §2's default is client_secret_basic; a client that names no method is not pinned to
  // it, since libraries (openid-client) then send the secret in the body.
  const method = named ?? 'client_secret_basic';
  if (!policy.allowedAuthMethods.includes(method)) {
    throw new InvalidClientMetadata(`The token endpoint auth method is not allowed here (allowed: ${policy.allowedAuthMethods.join(', ')}).`, { logDetail: `method ${JSON.stringify(method)}` });
  }
  // RFC 6749 §4.4: client_credentials is for confidential clients; a public one would give tokens to anyone who knows its id.
  if (method === 'none' && grantTypes.includes('client_credentials')) {
    throw new InvalidClientMetadata('A public client (token_endpoint_auth_method none) cannot use the client_credentials grant.');
  }
  const scopeText = text(body, 'scope');
  const scopes = scopeText === undefined ? [...policy.allowedScopes] : scopeText.split(' ').filter(Boolean);
  // offline_access (refresh tokens) is a scope like any other here: only when the policy lists it.
  for (const s of scopes) {
    if (!policy.allowedScopes.includes(s)) throw new InvalidClientMetadata('A requested scope is not allowed here.', { logDetail: `scope ${JSON.stringify(s)}` });
  }
  if (scopes.filter((s) => s !== 'offline_access').length === 0) throw new InvalidClientMetadata('The client needs at least one scope.');
  // The refresh_token grant is offline access by another name: the same policy decides.
  if (grantTypes.includes('refresh_token') && !policy.allowedScopes.includes('offline_access')) {
    throw new InvalidClientMetadata('The refresh_token grant needs offline_access, which is not allowed here.');
  }
  const redirectUris = stringList(body, 'redirect_uris') ?? [];
  for (const uri of redirectUris) checkRedirectUri(uri, policy);
  if (grantTypes.includes('authorization_code') && redirectUris.length === 0) {
    throw new InvalidRedirectUri('redirect_uris is required for the authorization_code grant.');
  }
  // OpenID Connect Dynamic Client Registration §2: the ID token's alg; `none` is never offered.
  const idTokenAlg = text(body, 'id_token_signed_response_alg', 20);
  if (idTokenAlg !== undefined && !idTokenAlgorithms.includes(idTokenAlg)) {
    throw new InvalidClientMetadata(`id_token_signed_response_alg must be one of ${idTokenAlgorithms.join(', ')}.`);
  }
  // RFC 9449 §5.2: every token request must then carry a DPoP proof (the config's requireDPoP).
  const dpopBound = flag(body, 'dpop_bound_access_tokens');
  // RFC 8705 §3.4: access tokens bound to the client certificate (requireCertificateBoundTokens).
  const certificateBound = flag(body, 'tls_client_certificate_bound_access_tokens');
  if (certificateBound && !certificateBoundTokens) {
    throw new InvalidClientMetadata('tls_client_certificate_bound_access_tokens needs mutual TLS, which this server does not offer.');
  }
  // RFC 9101 §10.5: its authorization requests must be signed request objects (requireRequestObject).
  const signedRequests = flag(body, 'require_signed_request_object');
  // OpenID Connect Back-Channel Logout 1.0 §2.2: where the logout token is posted, under the same
  // scheme rule as redirect URIs; the address rules apply again at each delivery (SSRF).
  const logoutUri = text(body, 'backchannel_logout_uri');
  if (logoutUri !== undefined) checkBackchannelLogoutUri(logoutUri, policy);
  const logoutSessionRequired = flag(body, 'backchannel_logout_session_required');
  const name = text(body, 'client_name', 200);
  return {
    ...(name === undefined ? {} : { clientName: name }),
    allowedGrantTypes: grantTypes,
    allowedScopes: scopes.filter((s) => s !== 'offline_access'),
    ...(scopes.includes('offline_access') || grantTypes.includes('refresh_token') ? { allowOfflineAccess: true } : {}),
    ...(redirectUris.length > 0 ? { redirectUris } : {}),
    ...(named === undefined ? {} : { tokenEndpointAuthMethods: [named] }),
    ...(method === 'none' ? { requireClientSecret: false } : {}),
    ...(idTokenAlg === undefined ? {} : { allowedIdentityTokenSigningAlgorithms: [idTokenAlg] }),
    ...(dpopBound ? { requireDPoP: true } : {}),
    ...(certificateBound ? { requireCertificateBoundTokens: true } : {}),
    ...(signedRequests ? { requireRequestObject: true } : {}),
    ...(logoutUri === undefined ? {} : { backchannelLogoutUri: logoutUri }),
    ...(logoutSessionRequired === undefined ? {} : { backchannelLogoutSessionRequired: logoutSessionRequired }),
  };
}

/** §2.2: an absolute URL without a fragment; https, or http on a loopback address under the native-app policy. */
function checkBackchannelLogoutUri(uri: string, policy: Policy): void {
  const url = URL.canParse(uri) ? new URL(uri) : undefined;
  if (url === undefined || uri.includes('#') || !/^https?:$/.test(url.protocol)) {
    throw new InvalidClientMetadata('backchannel_logout_uri must be an absolute http(s) URL without a fragment.');
  }
  if (url.protocol === 'http:' && !(policy.redirectUris === 'https-or-loopback' && isLoopbackHost(url.hostname))) {
    throw new InvalidClientMetadata(policy.redirectUris === 'https' ? 'backchannel_logout_uri must use https.' : 'backchannel_logout_uri must use https, or http on a loopback address.');
  }
}

/** The metadata a registration answers with (RFC 7591 §3.2.1), from what is stored. */
export function metadataOf(clientId: string, definition: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const d = definition as {
    clientName?: string; allowedGrantTypes?: string[]; allowedScopes?: string[]; allowOfflineAccess?: boolean; redirectUris?: string[]; tokenEndpointAuthMethods?: string[];
    allowedIdentityTokenSigningAlgorithms?: string[]; requireDPoP?: boolean; requireCertificateBoundTokens?: boolean;
    requireRequestObject?: boolean; backchannelLogoutUri?: string; backchannelLogoutSessionRequired?: boolean;
  };
  const grantTypes = d.allowedGrantTypes ?? [];
  return {
    client_id: clientId,
    ...(d.clientName === undefined ? {} : { client_name: d.clientName }),
    grant_types: grantTypes,
    response_types: grantTypes.includes('authorization_code') ? ['code'] : [],
    redirect_uris: d.redirectUris ?? [],
    token_endpoint_auth_method: d.tokenEndpointAuthMethods?.[0] ?? 'client_secret_basic',
    scope: [...(d.allowedScopes ?? []), ...(d.allowOfflineAccess ? ['offline_access'] : [])].join(' '),
    // Only for a client that can get ID tokens; RS256 is what it gets when it named none.
    ...(d.allowedScopes?.includes('openid') ? { id_token_signed_response_alg: d.allowedIdentityTokenSigningAlgorithms?.[0] ?? defaultIdTokenAlgorithm } : {}),
    dpop_bound_access_tokens: d.requireDPoP === true,
    ...(d.requireCertificateBoundTokens ? { tls_client_certificate_bound_access_tokens: true } : {}),
    require_signed_request_object: d.requireRequestObject === true,
    // The service always sends `sid`, so the default (true) is what the client gets when it named none.
    ...(d.backchannelLogoutUri === undefined ? {} : {
      backchannel_logout_uri: d.backchannelLogoutUri, backchannel_logout_session_required: d.backchannelLogoutSessionRequired ?? true,
    }),
  };
}
