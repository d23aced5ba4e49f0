/**
 * The service's registered model: clients, their secrets, API scopes and resources, identity
 * resources. Each field is declared once, here, with zod 4 (`fields.ts`):
 * its type in the config (`z.input`), its default and resolved type (`z.output`), its check and
 * its description for the JSON Schema and the config reference (`npm run config-schema`).
 * Checks that join two fields or two parts of the config live in `src/config/cross-checks.ts`.
 * Adding a client field is one entry in `clientSchema`, plus the code that reads it, plus its
 * type line in the SDK's `Client` (`src/sdk/model.ts`): the SDK is a leaf that imports nothing,
 * not even zod, so plugins get a written-out copy of the resolved type, and the checks at the end
 * of this file and in `test/sdk/types.test.ts` fail to compile until the two agree.
 */
import type * as Sdk from '../sdk/model.js';
import type { LocalizedText } from '../sdk/model.js';
import { anyText, checkedBy, describeValue, fields, flag, list, oneOf, text, textList, wholeNumber, z } from './fields.js';
import { checkDescription } from './validate-branding.js';

/** ISO 8601: a plain date (read as UTC), or a date-time with an explicit zone. */
const isoDateTime = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2}))?$/;

/** True for a real calendar date-time: `Date.parse` would roll February 30th into March. */
function isIsoDateTime(value: string): boolean {
  const m = isoDateTime.exec(value);
  if (!m || Number.isNaN(Date.parse(value))) return false;
  const [year, month, day, hour = '0', minute = '0', second = '0'] = m.slice(1).map((v) => v ?? undefined) as string[];
  const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  return (
    date.getUTCMonth() === Number(month) - 1 && date.getUTCDate() === Number(day) &&
    Number(hour) < 24 && Number(minute) < 60 && Number(second) < 60
  );
}

/** RFC 6749 §3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E ) */
const scopeToken = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

const expirationMessage = (iss: { input?: unknown }): string =>
  `expected an ISO 8601 date-time such as "2027-01-31T00:00:00Z", got ${describeValue(iss.input)}`;

/** A secret held by a client or an API resource (spec §2.1); its expiration is parsed once, at start-up. */
export const secretSchema = fields({
  value: text({ description: 'Shared secret: base64 of the SHA-256 (or SHA-512) digest of the UTF-8 secret, as made by `hashSecret()` or `svc hash-secret`. Certificate secret: the leaf X.509 certificate, base64 DER.' }),
  type: text({ description: '`"SharedSecret"`, `"X509CertificateBase64"`, `"JsonWebKey"`, or a plugin\'s own type.' }).default('SharedSecret'),
  description: anyText({ description: 'Shown in logs to tell secrets apart; never the secret itself.' }).optional(),
  expiration: z.string({ error: expirationMessage }).refine(isIsoDateTime, { error: expirationMessage })
    .describe('ISO 8601 date-time after which the secret no longer authenticates, e.g. `"2027-01-01T00:00:00Z"`.').optional(),
}, { expected: 'a secret definition { value, type?, description?, expiration? }' })
  .transform((s) => ({
    value: s.value,
    type: s.type,
    description: s.description,
    /** Epoch milliseconds, or `undefined` when the secret does not expire. */
    expiresAt: s.expiration === undefined ? undefined : Date.parse(s.expiration),
  }));

const secrets = (description: string) => list(secretSchema, description).default(() => []);

/** An origin is scheme://host[:port] with nothing after it (RFC 6454). */
const originMessage = (iss: { input?: unknown }): string => (typeof iss.input === 'string' && iss.input !== ''
  ? `expected an origin such as "https://app.example.com", got ${describeValue(iss.input)}`
  : `expected a non-empty string, got ${describeValue(iss.input)}`);
const origin = z.string({ error: originMessage }).regex(/^https?:\/\/[^/?#\s]+$/, { error: originMessage });

/** A client's `tokenEndpointAuthMethods`: each once, at least one (which names exist is checked once the plugins are loaded). */
const authMethods = list(text()).superRefine((methods, ctx) => {
  if (methods.length === 0) {
    ctx.addIssue({ code: 'custom', input: methods, message: 'expected at least one method (leave the field out to allow every method the client has secrets for)' });
  }
  methods.forEach((m, j) => {
    if (methods.indexOf(m) !== j) ctx.addIssue({ code: 'custom', input: m, path: [j], message: `"${m}" is listed twice` });
  });
});

export const clientSchema = fields({
  clientId: text({ max: 100, description: 'The client\'s `client_id`.' }),
  clientName: anyText({ message: 'expected a string', description: 'Shown to people on the consent page and in logs.' }).optional(),
  clientSecrets: secrets('Secrets the client authenticates with; a confidential client needs at least one.'),
  requireClientSecret: flag('`false` makes a public client that authenticates with `client_id` alone.').default(true),
  allowedGrantTypes: textList('e.g. `["client_credentials"]`, or an extension grant\'s `grantType` such as `"delegation"`.'),
  allowedScopes: textList('API scopes and identity resources the client may request.'),
  accessTokenLifetime: wholeNumber(1, undefined, 'Access token lifetime in seconds.').default(3600),
  accessTokenType: oneOf(['jwt', 'reference'], '`"jwt"` or `"reference"`: an opaque handle whose claims live in the store.').default('jwt'),
  allowOfflineAccess: flag('Lets the client request `offline_access` and receive refresh tokens.').default(false),
  absoluteRefreshTokenLifetime: wholeNumber(1, undefined, 'Absolute refresh token lifetime in seconds (30 days).').default(2_592_000),
  slidingRefreshTokenLifetime: wholeNumber(0, undefined, 'Sliding refresh token lifetime in seconds (15 days); 0 turns sliding off.').default(1_296_000),
  // A few seconds covers two tabs and a client's retry after a time-out; longer would let a
  // thief's reuse soon after the client's go unnoticed. Short by design: within it a reused
  // refresh token is not treated as stolen.
  refreshTokenReuseInterval: wholeNumber(0, 300, 'Seconds after a refresh token is used in which presenting it again is refused (`invalid_grant`) without revoking its family: two tabs, or a retry after a time-out. Later reuse revokes the family (RFC 9700 §4.14.2). 0 turns the grace off.').default(5),
  deviceCodeLifetime: wholeNumber(1, undefined, 'Device code lifetime in seconds (RFC 8628).').default(300),
  pollingInterval: wholeNumber(1, undefined, 'Minimum seconds between device code polls (RFC 8628 §3.5).').default(5),
  properties: z.record(z.string(), z.string(), { error: 'expected an object of string values' })
    .describe('Free-form settings read by plugins, e.g. `{ "privateKeyJwt.audience": "compat" }`.').default(() => ({})),
  allowedCorsOrigins: list(origin, 'Browser origins allowed to call the token, revocation and device endpoints, e.g. `["https://app.example.com"]`.').default(() => []),
  tokenEndpointAuthMethods: authMethods.describe('The only client authentication methods this client may use (RFC 7591 §2\'s `token_endpoint_auth_method`, as a list so a client can move from one method to another), e.g. `["private_key_jwt"]`. `"none"` is for public clients. Default: any method the client holds secrets for.').optional(),
  requireCertificateBoundTokens: flag('Every access token of this client is bound to the TLS client certificate of its token request (RFC 8705 §3, `cnf["x5t#S256"]`), and a public client\'s refresh tokens too (§4).').default(false),
  redirectUris: textList('Where the authorization endpoint may send the browser back, compared as exact strings (RFC 9700 §2.1); a loopback `http://127.0.0.1/cb` of a native app may differ only in port (RFC 8252 §7.3). Required with `authorization_code`.').default(() => []),
  postLogoutRedirectUris: textList('Where `/connect/endsession` may send the browser after logout, exact match.').default(() => []),
  backchannelLogoutUri: text({ max: 2000, description: 'Where the service posts a logout token when a sign-in session this client got a code in ends (OpenID Connect Back-Channel Logout 1.0): an absolute http(s) URL without a fragment.' })
    .refine((uri) => URL.canParse(uri) && /^https?:$/.test(new URL(uri).protocol) && !uri.includes('#'), { error: (iss) => `expected an absolute http(s) URL without a fragment (Back-Channel Logout §2.2), got ${describeValue(iss.input)}` })
    .optional(),
  // Back-Channel Logout §2.2; IdentityServer's BackChannelLogoutSessionRequired. Our logout tokens always carry `sid`, so true is always met.
  backchannelLogoutSessionRequired: flag('The client needs the `sid` claim in its logout tokens to know which session ended (registration\'s `backchannel_logout_session_required`); the service always sends it, with `sub`.').default(true),
  // RFC 9700 §2.1.1: PKCE for every client, confidential ones included.
  requirePkce: flag('Authorization requests must carry an S256 `code_challenge` (RFC 7636); public clients always need it.').default(true),
  requireConsent: flag('The user approves the requested scopes on a consent page before a code is issued.').default(false),
  requireMfa: flag('Sign-ins for this client need a second factor (`acr` `mfa`): a user without one sets up one-time codes on the spot, or the request is refused with `unmet_authentication_requirements`.').default(false),
  requirePushedAuthorization: flag('Authorization requests must come through `/connect/par` (RFC 9126).').default(false),
  requireRequestObject: flag('Authorization requests must be signed request objects (`request`, RFC 9101), at the authorization endpoint or at PAR; RFC 9101 §10.5 `require_signed_request_object`. IdentityServer\'s name.').default(false),
  authorizationSignedResponseAlg: text({ description: 'The algorithm of this client\'s signed authorization responses (JARM `authorization_signed_response_alg`): one the service signs with (`signing.accessTokenAlgorithm` or `signing.idTokenAlgorithms`). Default RS256.' }).optional(),
  // RFC 6749 §4.1.2 recommends at most 10 minutes; five is IdentityServer's default.
  authorizationCodeLifetime: wholeNumber(1, 600, 'Authorization code lifetime in seconds.').default(300),
  requireDPoP: flag('Every token request must carry a DPoP proof (RFC 9449), so every access token of the client is bound to its key. IdentityServer\'s name.').default(false),
  fapi2: oneOf(['off', 'security', 'message-signing'], 'This client under the FAPI 2.0 profile (docs/guides/fapi2.md): `"security"` (FAPI 2.0 Security Profile), `"message-signing"` (and FAPI 2.0 Message Signing), `"off"`. Default: the global `fapi2`.').optional(),
  allowedIdentityTokenSigningAlgorithms: textList('The algorithm of this client\'s ID tokens: the first entry, which must be one of `signing.idTokenAlgorithms`. Empty: RS256, OpenID Connect Core\'s default.').default(() => []),
  // The MCP authorization profile: every token names the one API it is for.
  requireResourceIndicator: flag('Authorization, device authorization and token requests must name the API they are for with `resource` (RFC 8707), so every access token of this client is addressed to named APIs only, as the Model Context Protocol\'s authorization profile asks.').default(false),
}, { expected: 'a client object' });

const description = () => checkedBy<LocalizedText>(
  (add, value) => checkDescription({ add }, '', value),
  'Shown on the consent pages: a string, or one per language `{ en: "...", de: "..." }`.',
).optional();

export const apiScopeSchema = fields({
  name: text().refine((name) => scopeToken.test(name), { error: 'a scope name may not contain spaces, quotes or backslashes (RFC 6749 §3.3)' }),
  description: description(),
}, { expected: '{ name, description? }' });

const resourceUriMessage = (iss: { input?: unknown }): string =>
  `expected an absolute URI without a fragment such as "https://billing.example.com/" (RFC 8707 §2), got ${describeValue(iss.input)}`;

/** RFC 8707 §2: a resource indicator is an absolute URI (RFC 3986 §4.3) without a fragment. */
export function isResourceIndicator(value: string): boolean {
  return URL.canParse(value) && !value.includes('#') && !/\s/.test(value);
}

export const apiResourceSchema = fields({
  name: text({ max: 100, description: 'The resource\'s name: its id at introspection, and the `aud` of tokens for its scopes unless it has a `uri`.' }),
  uri: z.string({ error: resourceUriMessage }).max(2000, { error: resourceUriMessage }).refine(isResourceIndicator, { error: resourceUriMessage })
    .describe('Its resource indicator (RFC 8707): an absolute URI without a fragment, e.g. `"https://billing.example.com/"`. Clients name the API by it in `resource`, and it is the `aud` of tokens for the API in place of `name`.').optional(),
  scopes: textList('Its API scopes, each defined in `apiScopes`.'),
  secrets: secrets('Secrets the API uses to authenticate at the introspection endpoint.'),
  introspectionSigningAlgorithm: text({ description: 'The algorithm of the API\'s JWT introspection answers (RFC 9701 `introspection_signed_response_alg`): one the service signs with (`signing.accessTokenAlgorithm` or `signing.idTokenAlgorithms`). Default RS256.' }).optional(),
  requiredAcr: oneOf(['pwd', 'mfa'], '`"mfa"` (or `"pwd"`): tokens for this API only for a sign-in that met this class. A sign-in for its scopes asks for a second factor, and the token endpoint (token exchange, delegation, refresh, every grant) refuses a token for it with `invalid_grant` when the user\'s sign-in did not meet it. Only in the config file: a stored API (`svc apis`, the admin API, a plugin) with it is refused (docs/guides/passkeys-and-one-time-codes.md).').optional(),
}, { expected: '{ name, uri?, scopes, secrets?, introspectionSigningAlgorithm?, requiredAcr? }' });

export const identityResourceSchema = fields({
  name: text({ description: 'e.g. `"openid"`, `"profile"`, `"email"`.' }),
  description: description(),
  claims: textList('User claims the resource releases, e.g. `["name", "family_name"]`.'),
}, { expected: '{ name, claims, description? }' });

/**
 * A resolved value as the host holds it: read-only, as `resolve.ts` freezes it. A field without
 * a default stays optional (absent when not set), so code and tests that spell out a whole
 * client need not change when such a field is added.
 */
export type Resolved<T> = T extends (...args: never[]) => unknown ? T
  : T extends readonly (infer E)[] ? readonly Resolved<E>[]
    : T extends object ? { readonly [K in keyof T]: Resolved<T[K]> } : T;

/** A secret ready for use: expiration parsed once at start-up. */
export type Secret = Resolved<z.output<typeof secretSchema>>;
/** `pluginFields`: the fields plugins declare, as written (`plugin-client-fields.ts`); always set by `resolve.ts`. */
export type Client = Resolved<z.output<typeof clientSchema> & { pluginFields?: Record<string, unknown> | undefined }>;
/**
 * A description as the host holds it (`branding.ts` `resolveDescription`): the string given, or
 * of descriptions by language the English (else the first) one, and every language given.
 */
type ResolvedDescription = { readonly description?: string | undefined; readonly descriptions?: Readonly<Record<string, string>> | undefined };
export type ApiScope = Omit<Resolved<z.output<typeof apiScopeSchema>>, 'description'> & ResolvedDescription;
export type ApiResource = Resolved<z.output<typeof apiResourceSchema>>;
export type IdentityResource = Omit<Resolved<z.output<typeof identityResourceSchema>>, 'description'> & ResolvedDescription;

/** Compiles only while the host's model is what the SDK promises plugins (it may hold more). */
type Fits<T extends true> = T;
export type ModelFitsSdk = Fits<
  Client extends Sdk.Client ? Secret extends Sdk.Secret ? ApiScope extends Sdk.ApiScope ? ApiResource extends Sdk.ApiResource
    ? IdentityResource extends Sdk.IdentityResource ? true : false : false : false : false : false
>;
