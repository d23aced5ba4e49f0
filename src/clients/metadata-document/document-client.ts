/**
 * A fetched client ID metadata document as a client definition (the shape of an `svc.config.ts`
 * client entry), or why it cannot be one (draft-ietf-oauth-client-id-metadata-document-03 §4):
 * a JSON object whose `client_id` is the URL it was fetched from, exactly; no shared secret
 * (`client_secret*`, the `client_secret_*` methods), since nothing was ever shared; a public
 * client (`none`, the default here) or one with `private_key_jwt` and its keys (`jwks`, or
 * `jwks_uri` fetched the same guarded way). What it may ask for is narrow: the code flow (and
 * refresh tokens when the deployment allows `offline_access`), PKCE, consent every time, redirect
 * URIs on https or a loopback address, scopes within `allowedScopes`.
 */
import { isLoopbackHost } from '../../config/redirect-uri-rules.js';

export class DocumentProblem extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DocumentProblem';
  }
}

const problem = (message: string): never => {
  throw new DocumentProblem(message);
};

/** Marks a client that came from a metadata document; read by consent (always asked) and the pages. */
export const metadataDocumentProperty = 'metadataDocument';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function strings(document: Record<string, unknown>, name: string): string[] | undefined {
  const value = document[name];
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.length > 20 || !value.every((v) => typeof v === 'string' && v.length > 0 && v.length <= 2000)) {
    return problem(`${name} is not a list of at most 20 strings`);
  }
  return value as string[];
}

function redirectUriAllowed(uri: string): boolean {
  if (!URL.canParse(uri) || uri.includes('#')) return false;
  const url = new URL(uri);
  return url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname));
}

/** RFC 7517: a set of public keys; private members are refused by the private-key-jwt plugin as for any client. */
export function keysOf(jwks: unknown): Array<Record<string, unknown>> {
  if (!isObject(jwks) || !Array.isArray(jwks.keys) || jwks.keys.length === 0 || jwks.keys.length > 10 || !jwks.keys.every(isObject)) {
    return problem('jwks is not a JWK set of 1 to 10 keys');
  }
  return jwks.keys as Array<Record<string, unknown>>;
}

/** JSON text of an answer that claims to be JSON (`application/json` or `application/*+json`, §4). */
export function jsonBody(contentType: string | undefined, body: Buffer, what: string): unknown {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json' && !/^application\/[\w.+-]+\+json$/.test(type)) problem(`${what} is not served as application/json`);
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    return problem(`${what} is not valid JSON`);
  }
}

export interface DocumentPolicy {
  readonly allowedScopes: readonly string[];
}

export interface ReadDocument {
  /** The client definition, `clientId` aside (the checker gets a short stand-in). */
  readonly definition: Record<string, unknown>;
  /** `jwks_uri`, when the keys are to be fetched. */
  readonly jwksUri: URL | undefined;
}

export function readDocument(document: unknown, url: URL, clientId: string, policy: DocumentPolicy): ReadDocument {
  if (!isObject(document)) return problem('the document is not a JSON object');
  // §4: "MUST match the URL of the document using simple string comparison".
  if (document.client_id !== clientId) problem('its client_id is not the URL it was fetched from');
  if ('client_secret' in document || 'client_secret_expires_at' in document) problem('it holds a client_secret, which a document must not');
  const method = document.token_endpoint_auth_method ?? 'none';
  if (method !== 'none' && method !== 'private_key_jwt') problem('its token_endpoint_auth_method is neither none nor private_key_jwt');

  const grantTypes = strings(document, 'grant_types') ?? ['authorization_code'];
  const refresh = grantTypes.includes('refresh_token');
  if (!grantTypes.includes('authorization_code') || grantTypes.some((g) => g !== 'authorization_code' && g !== 'refresh_token')) {
    problem('its grant_types must be authorization_code, optionally with refresh_token');
  }
  const responseTypes = strings(document, 'response_types') ?? ['code'];
  if (responseTypes.some((r) => r !== 'code')) problem('its response_types must be code');
  const redirectUris = strings(document, 'redirect_uris') ?? [];
  if (redirectUris.length === 0) problem('it lists no redirect_uris');
  if (!redirectUris.every(redirectUriAllowed)) problem('a redirect URI is neither https nor http on a loopback address');

  const named = document.scope;
  if (named !== undefined && (typeof named !== 'string' || named.length > 2000)) problem('its scope is not a string');
  const wanted = typeof named === 'string' ? named.split(' ').filter(Boolean) : [...policy.allowedScopes];
  const scopes = wanted.filter((s) => policy.allowedScopes.includes(s));
  const offline = policy.allowedScopes.includes('offline_access') && (refresh || scopes.includes('offline_access'));
  const apiScopes = scopes.filter((s) => s !== 'offline_access');
  if (apiScopes.length === 0) problem('none of the scopes it asks for is allowed here');

  let keys: Array<Record<string, unknown>> = [];
  let jwksUri: URL | undefined;
  if (method === 'private_key_jwt') {
    if ((document.jwks === undefined) === (document.jwks_uri === undefined)) problem('private_key_jwt needs exactly one of jwks and jwks_uri');
    if (document.jwks !== undefined) keys = keysOf(document.jwks);
    else if (typeof document.jwks_uri !== 'string' || !URL.canParse(document.jwks_uri) || new URL(document.jwks_uri).protocol !== 'https:') problem('its jwks_uri is not an https URL');
    else jwksUri = new URL(document.jwks_uri);
  }

  const rawName = document.client_name;
  const name = typeof rawName === 'string' && rawName.trim() !== '' ? rawName.trim().slice(0, 100) : undefined;
  return {
    jwksUri,
    definition: {
      // Anyone can publish a document: the host is what the user can check, so the pages show it.
      clientName: name === undefined ? url.host : `${name} (${url.host})`,
      requireClientSecret: method === 'private_key_jwt',
      tokenEndpointAuthMethods: [method],
      clientSecrets: keys.map((jwk) => ({ type: 'JsonWebKey', value: JSON.stringify(jwk) })),
      allowedGrantTypes: offline ? ['authorization_code', 'refresh_token'] : ['authorization_code'],
      allowedScopes: apiScopes,
      allowOfflineAccess: offline,
      redirectUris,
      requirePkce: true,
      requireConsent: true,
      properties: { registered: 'true', [metadataDocumentProperty]: 'true' },
    },
  };
}
