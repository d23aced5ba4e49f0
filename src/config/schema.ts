/**
 * The configuration, declared once per field with zod 4 (README, "Dependencies"): each entry
 * gives the field's type (`UserConfig` is `z.input`: what `svc.config.ts` holds, everything
 * optional but the parties themselves), its default (`.default`, applied by `resolve.ts`), its
 * check with a message that names what was expected and what was found, and its description for
 * the JSON Schema editors read (`svc.config.schema.json`) and the config reference
 * (`docs/config-reference.md`), both written by `npm run config-schema`.
 * Clients, secrets, API scopes and resources are declared the same way in `model.ts`. Checks across fields (a scope a client names must exist, and the like) live in
 * `cross-checks.ts`; checks that need the loaded plugins in `src/plugin-host/check-config.ts`.
 * Field names mirror IdentityServer's model in camelCase, so configs move over.
 */
import type { PluginClientFields } from '../sdk/index.js';
import { parseAddressRange } from '../net/address-ranges.js';
import { checkedBy, describeValue, fields, flag, list, oneOf, text, textList, wholeNumber, z } from './fields.js';
import { jwsAlgorithms, type JwsAlgorithm } from '../sdk/jws.js';
import {
  apiResourceSchema, apiScopeSchema, clientSchema, identityResourceSchema, secretSchema,
  type ApiResource, type ApiScope, type Client, type IdentityResource, type Resolved, type Secret,
} from './model.js';
import { closestName } from './closest-name.js';
import { isPhcScrypt } from './password-format.js';
import { canonicalName } from '../sdk/distinguished-name.js';
import { normalThumbprint } from './certificate-thumbprint.js';
import type { PagesConfig, ResolvedBranding } from './branding.js';
import { checkPasswordRulesConfig, type PasswordRules, type PasswordRulesConfig } from './password-rules.js';
// ISSUE 34 (upstream sign-in): the fields' types, checkers and resolution live in identity-providers.ts.
import {
  checkIdentityProviders, checkUpstreamSignIn,
  type IdentityProviderConfig, type ResolvedUpstreamSignIn, type UpstreamSignInConfig,
} from './identity-providers.js';

/**
 * The algorithms the service signs its tokens with (`signing.accessTokenAlgorithm`,
 * `signing.idTokenAlgorithms`), in the order the config's messages list them. Each is one of the
 * SDK's JWS algorithms (`src/sdk/jws.ts`), which sign and verify them; `Ed25519` (RFC 9864) is
 * accepted there for verification only, and an Ed25519 key here signs as `EdDSA`.
 */
export const signingAlgorithms = [
  'ES256', 'ES384', 'ES512', 'RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'EdDSA',
] as const satisfies readonly JwsAlgorithm[];

export type SigningAlgorithm = (typeof signingAlgorithms)[number];

export const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** Every first-party plugin the package ships (`plugins/` inside it). */
export const packagePluginNames = ['shared-secret', 'private-key-jwt', 'delegation', 'token-exchange', 'mutual-tls', 'workload-identity'] as const;

/** OpenID Connect Discovery §3: `id_token_signing_alg_values_supported` must include RS256. */
const requiredIdTokenAlgorithm = 'RS256';

/** The `service.name` of spans when neither the config nor `OTEL_SERVICE_NAME` names one. */
export const defaultServiceName = 'svc-token-service';

/** An absolute http(s) URL without query or fragment (RFC 8414 §2 for the issuer). */
function url(name: string) {
  return text().superRefine((value, ctx) => {
    let parsed: URL;
    try {
      parsed = new URL(value);
    } catch {
      ctx.addIssue({ code: 'custom', input: value, message: `expected an absolute http(s) URL, got ${describeValue(value)}` });
      return;
    }
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') ctx.addIssue({ code: 'custom', input: value, message: `expected an http(s) URL, got ${describeValue(value)}` });
    if (parsed.search || parsed.hash) ctx.addIssue({ code: 'custom', input: value, message: `the ${name} must not contain a query or fragment` });
  });
}

/** Each entry once, and known: `known` lists what is allowed. */
function knownNames(known: readonly string[], message: (name: string) => string) {
  return list(text()).superRefine((names, ctx) => {
    names.forEach((name, i) => {
      if (!known.includes(name)) ctx.addIssue({ code: 'custom', input: name, path: [i], message: message(name) });
      else if (names.indexOf(name) !== i) ctx.addIssue({ code: 'custom', input: name, path: [i], message: `"${name}" is listed twice` });
    });
  });
}

const secretString = (min: number) => z.string({ error: `expected a string of at least ${min} characters` })
  .min(min, { error: `expected a string of at least ${min} characters` });

const keySource = z.union([
  text(),
  z.object({ path: text() }),
  z.object({ env: text() }),
], { error: (iss) => `expected a path string, { path } or { env }, got ${describeValue(iss.input)}` });

// Objects only: a bare string here would too easily be the key itself pasted into the config.
const keyEncryptionKeyMessage = 'expected { env: "NAME" } or { path: "file" } (the key itself never goes in the config)';
const keyEncryptionKey = z.union([
  z.strictObject({ path: text() }),
  z.strictObject({ env: text() }),
], { error: keyEncryptionKeyMessage });

const threadsMessage = (iss: { input?: unknown }): string => `expected "auto" or a whole number from 0 to 256, got ${describeValue(iss.input)}`;
const workersMessage = (iss: { input?: unknown }): string => `expected a whole number from 1 to 256, got ${describeValue(iss.input)}`;

const userSchema = fields({
  subjectId: text({ max: 200 }),
  username: text({ max: 100 }),
  password: text().refine(isPhcScrypt, {
    error: 'expected a PHC scrypt hash "$scrypt$ln=..,r=..,p=..$<salt>$<hash>" (make one with `svc hash-password`), never a plain password',
  }).describe('PHC scrypt string: `$scrypt$ln=<log2 N>,r=<r>,p=<p>$<salt>$<hash>` (see `svc hash-password`).'),
  claims: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]), { error: 'expected an object of claim name to value' }).default(() => ({})),
}, { expected: '{ subjectId, username, password, claims? }' });

const signingSchema = fields({
  // ES256 signs about 10x faster than RS256 on this hardware (see docs/guides/operations.md, "Signing keys").
  accessTokenAlgorithm: oneOf(signingAlgorithms, 'Algorithm of access tokens (see docs/guides/operations.md, "Signing keys", for measurements).').default('ES256'),
  // OpenID Connect Core §3.1.3.7: RS256 when a client registered none; Discovery §3 requires it.
  idTokenAlgorithms: list(text()).superRefine((algs, ctx) => {
    algs.forEach((alg, i) => {
      if (!(signingAlgorithms as readonly string[]).includes(alg)) ctx.addIssue({ code: 'custom', input: alg, path: [i], message: `unknown algorithm "${alg}" (allowed: ${signingAlgorithms.join(', ')})` });
      else if (algs.indexOf(alg) !== i) ctx.addIssue({ code: 'custom', input: alg, path: [i], message: `"${alg}" is listed twice` });
    });
    if (!algs.includes(requiredIdTokenAlgorithm)) {
      ctx.addIssue({ code: 'custom', input: algs, message: `must include "${requiredIdTokenAlgorithm}", the algorithm every OpenID Connect client accepts (OpenID Connect Discovery §3), e.g. ["RS256", "ES256"]` });
    }
  }).describe('The algorithms ID tokens may be signed with, listed in discovery as `id_token_signing_alg_values_supported`; the service keeps a key for each. A client picks one with `allowedIdentityTokenSigningAlgorithms`. Must include RS256 (OpenID Connect Discovery §3).').default(() => ['RS256']),
  keys: list(keySource, 'Keys from outside the store; when given they take precedence over managed keys. Each is a path (relative to the config file) to a PEM PKCS#8 or private JWK file, or `{ env: "NAME" }` for an environment variable holding either.').default(() => []),
  keyEncryptionKeys: list(keyEncryptionKey, 'Keys that encrypt the signing keys the service creates (AES-256-GCM), so the store holds no usable private key: each 32 random bytes as base64 or hex, in a file or an environment variable, never in the config itself, e.g. `[{ env: "SVC_KEK" }]`. The first seals new keys; the others still open what they sealed (rotation; see `svc keys`). Empty: keys stored as plain JWKs.').default(() => []),
  rotationInterval: wholeNumber(60, undefined, 'Seconds between automatic key rotations (90 days).').default(90 * 86_400),
  propagationTime: wholeNumber(0, undefined, 'Seconds a new key is published before it signs.').default(3600),
  refreshInterval: wholeNumber(1, undefined, 'Seconds between reloads of the key set from the store.').default(60),
  threads: z.union([z.literal('auto'), z.int({ error: threadsMessage }).min(0, { error: threadsMessage }).max(256, { error: threadsMessage })], { error: threadsMessage })
    .describe('Sign access tokens and ID tokens on this many worker threads instead of the event loop; `"auto"` is one per core; 0 signs inline. See docs/guides/operations.md, "Signing on threads", for when it pays.').default(0),
});

const deviceFlowSchema = fields({
  userCodeFormat: oneOf(['base20', 'numeric'], '`"base20"` (`BCDF-GHJK`) or `"numeric"` (`123-456-789`).').default('base20'),
  maxFailedAttempts: wholeNumber(1, undefined, 'Wrong user codes allowed per client address per window before it is told to wait.').default(10),
  failedAttemptsWindow: wholeNumber(1, undefined, 'Window of the rate limit in seconds.').default(300),
  cookieSecret: secretString(32).describe('Deprecated: the old name of `pageSecret`, still read (with a line in the log at start-up).').optional(),
  // Generous: a household or an office behind one address starts a handful a minute; a flood
  // of hundreds a second (each a stored flow) is what this stops.
  maxAuthorizationsPerAddress: wholeNumber(1, undefined, 'Device authorizations one address may start per window before it gets 429.').default(60),
  maxAuthorizationsPerClient: wholeNumber(1, undefined, 'Device authorizations one client may start per window (from all addresses) before it gets 429.').default(6000),
  authorizationsWindow: wholeNumber(1, undefined, 'Window of the two limits above in seconds.').default(60),
});

const authThrottleSchema = fields({
  pairThreshold: wholeNumber(1, undefined, 'Failed authentications per (client id, address) before back-off starts.').default(5),
  addressThreshold: wholeNumber(1, undefined, 'Failed authentications per address (any client id) before back-off starts.').default(50),
  maxDelay: wholeNumber(1, undefined, 'Longest back-off in seconds.').default(300),
  window: wholeNumber(1, undefined, 'Seconds without a failure (once any back-off has ended) after which a counter is forgotten.').default(900),
});

const passwordThrottleSchema = fields({
  pairThreshold: wholeNumber(1, undefined, 'Failed sign-ins per (username, address) before back-off starts.').default(5),
  userThreshold: wholeNumber(1, undefined, 'Failed sign-ins per username (from all addresses) before back-off starts.').default(20),
  addressThreshold: wholeNumber(1, undefined, 'Failed sign-ins per address (any username) before back-off starts.').default(50),
  maxDelay: wholeNumber(1, undefined, 'Longest back-off in seconds.').default(300),
  window: wholeNumber(1, undefined, 'Seconds without a failure (once any back-off has ended) after which a counter is forgotten.').default(900),
}, { description: 'Failed password-grant sign-ins, throttled with the same back-off as `authThrottle`.' });

// Counts only inactive answers: an API introspecting live tokens at any rate never meets it.
const introspectionLimitSchema = fields({
  maxInactive: wholeNumber(1, undefined, 'Inactive answers (unknown, expired or other APIs\' tokens) per API resource per window before it gets 429.').default(6000),
  window: wholeNumber(1, undefined, 'Window in seconds.').default(60),
}, { description: 'RFC 7662 §4: limits token scanning through the introspection endpoint.' });

// A person starts a sign-in or two a minute, an office behind one address a few dozen; the
// total bounds what every address together keeps in the store: 3000 a minute for the
// 15 minutes an interaction lives is at most 45,000 records (about 20 MB at the usual size).
const interactionLimitSchema = fields({
  maxPerAddress: wholeNumber(1, undefined, 'Interactions started per client address per window before it gets a 429 page.').default(60),
  maxTotal: wholeNumber(1, undefined, 'Interactions started in all (every address, every node with shared `counters`) per window.').default(3000),
  window: wholeNumber(1, undefined, 'Window in seconds.').default(60),
}, { description: 'Authorization interactions started (sign-in and consent pages waiting for a person), each a record in the store for 15 minutes written before anyone has signed in.' });

// Milliseconds: at least 100 ms, at most an hour.
const milliseconds = (value: number, description: string) => wholeNumber(100, 3_600_000, description).default(value);
const connectionsSchema = fields({
  firstByteTimeout: milliseconds(5000, 'A new connection that sends nothing for this long (ms) is closed, without an answer.'),
  headersTimeout: milliseconds(10_000, 'A request\'s headers must have arrived this long (ms) after it began; otherwise 408.'),
  requestTimeout: milliseconds(30_000, 'A whole request (headers and body) must have arrived this long (ms) after it began; otherwise 408.'),
  keepAliveTimeout: milliseconds(5000, 'An idle kept-alive connection is closed after this long (ms) without a new request.'),
}, { description: 'Bounds on how long a connection may hold a socket without doing its part. Milliseconds, as Node\'s own settings.' });

const tlsSchema = fields({
  certificate: text({ description: 'PEM certificate of the service, followed by any intermediates (path relative to the config file).' }),
  key: text({ description: 'PEM private key of that certificate (unencrypted PKCS#8, PKCS#1 or SEC1).' }),
  // Asking every client for a certificate makes browsers show a picker on the sign-in page.
  requestClientCertificate: flag('Ask every client for a certificate in the handshake (mutual TLS, RFC 8705). A missing or bad certificate never fails the handshake: client authentication judges it and answers `invalid_client`.').default(false),
}, { expected: '{ certificate, key, requestClientCertificate? }', description: 'The service terminates TLS itself (https) instead of sitting behind a TLS-terminating proxy. Paths are relative to the config file.' });

const mtlsSchema = fields({
  clientCa: text({ description: 'PEM file (relative to the config file) of the CAs that issue client certificates for `tls_client_auth` (`X509Name` secrets). Put intermediates in the file too. Default: none (only pinned certificates authenticate).' }).optional(),
  // RFC 9110 §5.1: a header name is a token.
  certificateHeader: text({ max: 100, description: 'The request header a TLS-terminating proxy in `trustedProxies` writes the client certificate into, as URL-encoded PEM (nginx: `$ssl_client_escaped_cert`). From any other address the header is ignored.' })
    .refine((h) => /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(h), { error: (iss) => `expected a header name such as "x-ssl-client-cert", got ${describeValue(iss.input)}` }).optional(),
  certificateBoundAccessTokens: flag('Bind the access tokens of every client that authenticated with its certificate (RFC 8705 §3).').default(false),
  // RFC 8705 §5: clients send their certificates there, so over TLS.
  endpointAliasesBaseUrl: text({ description: 'Base URL of a host that asks for client certificates when the issuer\'s host does not (RFC 8705 §5 `mtls_endpoint_aliases`), e.g. `"https://mtls.example.com"`. Default: the issuer.' })
    .refine((value) => {
      try {
        const parsed = new URL(value);
        return parsed.protocol === 'https:' && !parsed.search && !parsed.hash;
      } catch {
        return false;
      }
    }, { error: (iss) => `expected an https URL without query or fragment, such as "https://mtls.example.com", got ${describeValue(iss.input)}` }).optional(),
}, { description: 'Mutual TLS (RFC 8705): where client certificates come from and what they bind.' });

const dpopSchema = fields({
  // The common asymmetric set; `Ed25519` is RFC 9864's name for EdDSA with that curve, which
  // oauth4webapi signs with. Every one verifies with node:crypto.
  signingAlgValues: list(text()).superRefine((algs, ctx) => {
    algs.forEach((alg, i) => {
      // RFC 9449 §4.2: an asymmetric algorithm only; no MAC, no `none`.
      if (!(jwsAlgorithms as readonly string[]).includes(alg)) {
        ctx.addIssue({ code: 'custom', input: alg, path: [i], message: `unknown or symmetric algorithm "${alg}" (allowed: ${jwsAlgorithms.join(', ')})` });
      }
    });
    if (algs.length === 0) ctx.addIssue({ code: 'custom', input: algs, message: 'expected at least one algorithm such as "ES256"' });
  }).describe('The asymmetric JWS algorithms a proof may be signed with, listed in discovery as `dpop_signing_alg_values_supported`.')
    .default(() => ['ES256', 'PS256', 'RS256', 'EdDSA', 'Ed25519']),
  // RFC 9449 §11.1: proofs are short-lived; five minutes covers a slow client and a retry.
  proofMaxAge: wholeNumber(1, 3600, 'Seconds a proof\'s `iat` may lie in the past.').default(300),
  clockSkew: wholeNumber(0, 300, 'Seconds a proof\'s `iat` may lie in the future (clock differences).').default(10),
  requireNonce: flag('Proofs must carry a server nonce (RFC 9449 §8): a proof without one (or with a stale one) is answered `use_dpop_nonce` with a fresh nonce in the `DPoP-Nonce` header.').default(false),
  nonceLifetime: wholeNumber(10, 86_400, 'Seconds a nonce stays valid (at least this long, at most twice it).').default(300),
}, { description: 'DPoP (RFC 9449): proof-of-possession tokens. Always accepted; these settings tune the checks.' });

// RFC 9101: signed request objects at the authorization endpoint and at PAR.
const requestObjectsSchema = fields({
  // RFC 9101 §10.8 leaves the choice to the server; `none` and MACs are never accepted (§4: signed
  // by the client with a key the service knows, so only asymmetric algorithms can mean anything).
  signingAlgValues: list(text()).superRefine((algs, ctx) => {
    algs.forEach((alg, i) => {
      if (!(jwsAlgorithms as readonly string[]).includes(alg)) {
        ctx.addIssue({ code: 'custom', input: alg, path: [i], message: `unknown or symmetric algorithm "${alg}" (allowed: ${jwsAlgorithms.join(', ')})` });
      }
    });
    if (algs.length === 0) ctx.addIssue({ code: 'custom', input: algs, message: 'expected at least one algorithm such as "PS256"' });
  }).describe('The asymmetric JWS algorithms a request object may be signed with, listed in discovery as `request_object_signing_alg_values_supported`.')
    .default(() => [...jwsAlgorithms]),
  // FAPI 2.0 Message Signing §5.3.1: `exp` at most 60 minutes after `nbf`.
  maxLifetime: wholeNumber(1, 3600, 'Longest lifetime of a request object in seconds: `exp` at most this far after `nbf` (or after now when it has none).').default(3600),
  clockSkew: wholeNumber(0, 300, 'Seconds of tolerance for `exp` and `nbf` (clock differences).').default(10),
  required: flag('Every authorization request must be a signed request object (`request`, at the authorization endpoint or at PAR), for every client; listed in discovery as `require_signed_request_object` (RFC 9101 §10.5). Per client: `requireRequestObject`.').default(false),
}, { description: 'Signed request objects (RFC 9101, JAR): the `request` parameter at the authorization endpoint and at PAR.' });

// The database store costs one indexed read per interval while nothing changes.
const clientStoresSchema = fields({
  database: flag('Clients and API resources kept in the store\'s database, managed with `svc clients` and `svc apis` while the service runs (an empty table changes nothing).').default(true),
  refreshInterval: wholeNumber(1, 3600, 'Seconds within which a change in a store (the database, a plugin\'s) reaches every node.').default(5),
}, { description: 'Where clients and API resources come from besides this file.' });

// Off: opening registration is a decision, and even then only with an initial access token.
const registrationSchema = fields({
  enabled: flag('Serve `/connect/register` and list it in discovery.').default(false),
  allowedGrantTypes: textList('Grant types a registered client may have.').default(() => ['authorization_code', 'refresh_token', 'client_credentials']),
  allowedScopes: textList('Scopes a registered client may have, e.g. `["openid", "api1.read"]`; empty: registration must list them.').default(() => []),
  allowedAuthMethods: textList('`token_endpoint_auth_method` values allowed; add `"none"` for public clients.').default(() => ['client_secret_basic', 'client_secret_post']),
  // Loopback http is for native apps (RFC 8252 §7.3): the operator who registers them says so.
  redirectUris: oneOf(['https', 'https-or-loopback'], 'Which redirect URIs are accepted: `"https"` (only `https://`), or the native-app policy `"https-or-loopback"` (also loopback http with any port, RFC 8252 §7.3).').default('https'),
  // Long enough for a client that rarely changes its metadata, short enough that a lost one stops working.
  registrationAccessTokenLifetime: wholeNumber(60, 10 * 365 * 86_400, 'Seconds a registration access token (RFC 7592 §3) opens its client\'s configuration endpoint; every `PUT` answers a new one (90 days).').default(90 * 86_400),
  // Issue 36: agents (MCP clients) cannot obtain an initial access token; a deployment may let them register anonymously, under a narrow policy.
  policy: oneOf(['initial-access-token', 'open'], 'Who may register: `"initial-access-token"` (the caller presents one, made by `svc clients registration-token`) or `"open"` (anyone, without a token, but only a public client: `token_endpoint_auth_method` `none` with PKCE, `authorization_code` and `refresh_token` only, redirect URIs on https or a loopback address, consent asked every time; see `openRegistration`).').default('initial-access-token'),
  openRegistration: fields({
    maxPerAddress: wholeNumber(1, 100_000, 'Registrations one address may make per `window`; more are answered 429.').default(10),
    maxTotal: wholeNumber(1, 10_000_000, 'Registrations from all addresses together per `window` (per node); more are answered 429.').default(1000),
    window: wholeNumber(1, 86_400, 'Seconds of the rate limits\' window.').default(3600),
    unusedLifetime: wholeNumber(60, 10 * 365 * 86_400, 'Seconds after its registration or last use after which an openly registered client is removed (30 days).').default(30 * 86_400),
  }, { description: 'Limits of the `"open"` registration policy.' }).prefault({}),
}, { description: 'Dynamic client registration (RFC 7591, RFC 7592) at `/connect/register`, with an initial access token made by `svc clients registration-token`, or open to anonymous callers for public clients (`policy: "open"`).' });

// Issue 36: off; an operator who turns it on lets any host on the internet name a client.
const clientIdMetadataDocumentsSchema = fields({
  enabled: flag('Accept an `https` URL as `client_id`: the service fetches the JSON document it names (OAuth Client ID Metadata Document, draft-ietf-oauth-client-id-metadata-document-03) and treats it as a public client, or one authenticating with `private_key_jwt`, and lists `client_id_metadata_document_supported` in discovery.').default(false),
  allowedHosts: textList('Hosts (`host` or `host:port`) a document may be fetched from, e.g. `["app.example.com"]`; empty: any host with a public address.').default(() => []),
  allowedScopes: textList('Scopes a document\'s client may have (its `scope`, if given, narrows them), e.g. `["openid", "profile", "api1.read"]`; `offline_access` here lets it have refresh tokens.').default(() => []),
  allowedAddresses: list(text().refine((entry) => parseAddressRange(entry) !== undefined, {
    error: (iss) => `expected an IPv4 or IPv6 address or CIDR range such as "127.0.0.1" or "fd00::/8", got ${describeValue(iss.input)}`,
  }), 'Private, loopback or link-local addresses documents may nevertheless be fetched from, e.g. `["127.0.0.1"]` for a test; every other such address is refused.').default(() => []),
  trustedCertificates: text({ description: 'A PEM file of CA certificates trusted for the documents\' TLS besides the system\'s, relative to the config file (a test CA).' }).optional(),
  maxBytes: wholeNumber(256, 1024 * 1024, 'Largest document in bytes; a longer one is refused (5 KiB).').default(5 * 1024),
  timeout: wholeNumber(1, 60, 'Seconds a fetch (connecting, TLS, the whole answer) may take.').default(5),
  minCacheSeconds: wholeNumber(0, 86_400, 'Seconds a document is kept at least, whatever its `Cache-Control` says (also after a failed fetch).').default(60),
  maxCacheSeconds: wholeNumber(1, 7 * 86_400, 'Seconds a document is kept at most, whatever its `Cache-Control` says; also what a document without caching headers gets.').default(3600),
}, { description: 'Client ID Metadata Documents (issue 36; docs/guides/mcp.md): clients named by the https URL of their own metadata.' });

// One operator's certificate: by subject (any certificate the CA issues under it) or pinned by thumbprint.
const adminTlsClientSchema = fields({
  subject: text({ max: 1000, description: 'The client certificate\'s subject, the RFC 4514 way (`"CN=ops-alice, O=Example"`), compared as a set of attributes, case-insensitively. Any certificate `clientCa` issued under this subject.' })
    .refine((s) => canonicalName(s) !== undefined, { error: (iss) => `expected a distinguished name such as "CN=ops-alice, O=Example", got ${describeValue(iss.input)}` }).optional(),
  thumbprint: text({ description: 'The client certificate\'s SHA-256 thumbprint: base64url (`x5t#S256`) or hex as `openssl x509 -noout -fingerprint -sha256` prints it (`AB:CD:...`). Only that certificate, which `clientCa` must still have issued.' })
    .refine((t) => normalThumbprint(t) !== undefined, { error: (iss) => `expected a SHA-256 thumbprint (43 base64url characters, or 64 hex digits with or without colons), got ${describeValue(iss.input)}` }).optional(),
  operator: text({ max: 200, description: 'Who this certificate is: the name the `admin.request` events give as `clientId`, e.g. `"ops-alice"`.' }),
  scope: oneOf(['admin', 'admin.read'], 'What the certificate may do, as a token\'s scope would: `"admin"` everything, `"admin.read"` reading only.'),
}, { expected: '{ subject | thumbprint, operator, scope }' }).superRefine((entry, ctx) => {
  if ((entry.subject === undefined) === (entry.thumbprint === undefined)) {
    ctx.addIssue({ code: 'custom', input: entry, message: 'name the certificate by subject or by thumbprint (one of them)' });
  }
});

// Issue 39: mutual TLS instead of access tokens, for an admin listener beyond loopback.
const adminTlsSchema = fields({
  certificate: text({ description: 'PEM certificate of the admin listener, followed by any intermediates (path relative to the config file).' }),
  key: text({ description: 'PEM private key of that certificate (unencrypted PKCS#8, PKCS#1 or SEC1).' }),
  clientCa: text({ description: 'PEM file of the CAs that issue the operators\' client certificates (relative to the config file). A certificate it did not issue, or one expired, is refused (401).' }),
  clients: list(adminTlsClientSchema, 'The operators\' certificates and what each may do. A certificate the CA issued that no entry names is refused (403).').min(1, { error: 'required, expected at least one { subject | thumbprint, operator, scope }' }),
}, { expected: '{ certificate, key, clientCa, clients }', description: 'The admin listener speaks HTTPS and every caller presents a client certificate (mutual TLS) instead of an access token (docs/guides/admin-api.md, "Mutual TLS"). Paths are relative to the config file.' });

// Off: an admin API is opened by choice; on loopback unless the operator names another address (issue 39).
const adminSchema = fields({
  port: wholeNumber(0, 65535, 'The port of the admin API (docs/guides/admin-api.md), its own listener: never the public `port`. 0 picks a free port.'),
  host: text({ description: 'The address the admin API listens on.' }).default('127.0.0.1'),
  tls: adminTlsSchema.optional(),
}, { expected: 'an object { port, host?, tls? }', description: 'The admin API (docs/guides/admin-api.md): clients, API resources, users, signing keys and grants over HTTP, for a token of this service with scope `admin` or `admin.read`, or a client certificate (`tls`). Off unless set.' });

// Issue 37: the same address rules as every server-side fetch (`src/net/guarded-fetch.ts`).
const backchannelLogoutSchema = fields({
  timeout: wholeNumber(1, 60, 'Seconds one delivery (connecting and the whole answer) may take; a client that does not answer in time is tried again later.').default(5),
  maxAttempts: wholeNumber(1, 20, 'Deliveries tried per client and session before giving up (`logout.failed` event).').default(5),
  retryDelay: wholeNumber(1, 3600, 'Seconds before the first retry; each next one waits twice as long (5 attempts: 40, 80, 160, 320 s, about 10 minutes in all).').default(40),
  pollInterval: wholeNumber(1, 3600, 'Seconds between a node\'s looks for due deliveries in the store (retries, and work a stopped node left).').default(5),
  allowedAddresses: list(text().refine((entry) => parseAddressRange(entry) !== undefined, {
    error: (iss) => `expected an IPv4 or IPv6 address or CIDR range such as "127.0.0.1" or "10.0.0.0/8", got ${describeValue(iss.input)}`,
  }), 'Private, loopback or link-local addresses logout tokens may nevertheless be posted to, e.g. `["10.0.0.0/8"]` for clients on the internal network, `["127.0.0.1"]` for a test; every other such address is refused.').default(() => []),
}, { description: 'Back-channel logout deliveries (OpenID Connect Back-Channel Logout 1.0; docs/guides/logout.md): kept in the store until delivered, retried with back-off, posted under the server-side fetch address rules.' });

// Issue 34: the mail server "Forgot password?" sends its links through (`src/mail/`). Its password is
// never echoed, not even in a config error message.
const smtpSchema = fields({
  host: text({ description: 'The mail server\'s host name or address, e.g. `"smtp.example.com"`.' }),
  port: wholeNumber(1, 65535, 'The mail server\'s port: 587 for STARTTLS (submission), 465 for `security: "tls"`.').default(587),
  security: oneOf(['starttls', 'tls', 'none'], 'How the connection is protected: `"starttls"` (upgrade, required: the mail is not sent in the clear), `"tls"` (TLS from the first byte, port 465) or `"none"` (plain text, only for a relay on the same host).').default('starttls'),
  auth: fields({
    user: text({ description: 'The account name at the mail server.' }),
    password: z.string({ error: 'expected a non-empty string' }).min(1, { error: 'expected a non-empty string' }).describe('Its password, e.g. `process.env.SMTP_PASSWORD`; never logged.'),
  }, { expected: 'an object { user, password }', description: 'Sign in to the mail server (SMTP AUTH); absent: no sign-in.' }).optional(),
  from: text({ description: 'The sender of the mails, e.g. `"Example Sign-in <no-reply@example.com>"`.' }),
  caFile: text({ description: 'A PEM file of the certificate authorities the mail server\'s certificate is checked against, relative to the config file; absent: the system\'s.' }).optional(),
  resetLinkLifetime: wholeNumber(300, 86400, 'Seconds a password reset link works (once).').default(1800),
}, {
  expected: 'an object { host, port?, security?, auth?, from, caFile?, resetLinkLifetime? }',
  description: 'A mail server (SMTP): with it the sign-in page offers "Forgot password?", which mails a single-use reset link to a user the database keeps (docs/guides/password-reset.md). Off unless set.',
});

/** The whole config; the order of the fields is the order of the messages and of the reference. */
export const userConfigSchema = fields({
  issuer: url('issuer').describe('Issuer identifier URL. Default `http://localhost:<port>`.').optional(),
  port: wholeNumber(0, 65535, 'The port the service listens on.').default(5000),
  host: text({ description: 'The address the service listens on.' }).default('127.0.0.1'),
  pluginDirs: textList('The deployment\'s own plugin folders, relative to the config file, loaded after the package\'s plugins; skipped when the default folder does not exist, a folder listed here must exist.').default(() => ['./plugins']),
  packagePlugins: knownNames(packagePluginNames, (name) => `unknown package plugin "${name}"${didYouMean(name, packagePluginNames)} (known: ${packagePluginNames.join(', ')})`)
    .describe('The first-party plugins shipped inside the package to load, by name; `[]` loads none (for a deployment that brings its own).').default(() => [...packagePluginNames]),
  plugins: z.record(z.string(), z.record(z.string(), z.unknown(), { error: (iss) => `expected an options object, got ${describeValue(iss.input)}` }),
    { error: (iss) => `expected an object of plugin name to options, got ${describeValue(iss.input)}` })
    .describe('Options for each plugin, by plugin name, e.g. `{ "private-key-jwt": { clockSkew: 60 } }`.').default(() => ({})),
  store: text({ description: '`"memory"`, `"sqlite:<path>"` or `"postgres://..."`.' })
    .refine((store) => /^(memory$|sqlite:.+|postgres(ql)?:\/\/.+)/.test(store), { error: (iss) => `unknown store ${describeValue(iss.input)} (allowed: "memory", "sqlite:<path>", "postgres://...")` })
    .default('sqlite:./data/svc.db'),
  cleanupInterval: wholeNumber(1, undefined, 'Seconds between sweeps of expired records.').default(300),
  clients: list(clientSchema, 'The clients.').default(() => []),
  apiScopes: list(apiScopeSchema, 'The API scopes clients may request.').default(() => []),
  apiResources: list(apiResourceSchema, 'The APIs tokens are addressed to, with their scopes.').default(() => []),
  resourceIndicators: fields({
    // IdentityServer names its API resources and takes the name as `resource`; RFC 8707 §2 wants an absolute URI.
    acceptNames: flag('A `resource` parameter may also name an API by its `name` (IdentityServer\'s way) rather than only by its `uri`; the token\'s `aud` is still the API\'s `uri` when it has one.').default(false),
  }, { expected: 'an object { acceptNames? }', description: 'Resource indicators (RFC 8707): how the `resource` parameter names an API (docs/guides/resource-indicators.md).' }).prefault({}),
  identityResources: list(identityResourceSchema, 'OpenID Connect identity resources; with any, `openid` is required.').default(() => []),
  users: list(userSchema, 'Users of the password grant and the sign-in page.').default(() => []),
  signing: signingSchema.prefault({}),
  deviceFlow: deviceFlowSchema.prefault({}),
  pageSecret: secretString(32).describe('The root secret of every page and of the DPoP nonces: it signs the sign-in and device page cookies and CSRF tokens, keys the DPoP nonces and the shared counters\' keys. Every node must share it. Default: a random secret created once in the store (set it in production). Was `deviceFlow.cookieSecret`.').optional(),
  limits: fields({
    bodyBytes: wholeNumber(1024, 10 * 1024 * 1024, 'Largest request body in bytes (64 KiB).').default(64 * 1024),
    parameters: wholeNumber(5, 1000, 'Most form parameters in one request.').default(50),
  }).prefault({}),
  logLevel: oneOf(logLevels, 'The lowest level written to the log.').default('info'),
  workers: z.union([z.literal('auto'), z.int({ error: workersMessage }).min(1, { error: workersMessage }).max(256, { error: workersMessage })], { error: workersMessage }).describe('Processes serving requests; `"auto"` is one per core.').default(1),
  metrics: fields({
    enabled: flag('Serve `GET /metrics` (Prometheus text format).').default(false),
    bearerToken: secretString(16).describe('When set, `/metrics` requires `Authorization: Bearer <bearerToken>`.').optional(),
  }).prefault({}),
  tracing: fields({
    enabled: flag('Default: on when `OTEL_TRACES_EXPORTER` or `OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT` is set; `OTEL_SDK_DISABLED=true` wins.').optional(),
    endpoint: url('URL').describe('The OTLP/HTTP traces URL, e.g. `"http://collector:4318/v1/traces"`. Default: from `OTEL_EXPORTER_OTLP_*`, else `http://localhost:4318/v1/traces`.').optional(),
    serviceName: text({ max: 200, description: `The \`service.name\` of the spans. Default \`OTEL_SERVICE_NAME\`, else \`"${defaultServiceName}"\`.` }).optional(),
  }, { expected: 'an object { enabled?, endpoint?, serviceName? }', description: 'OpenTelemetry tracing (docs/guides/operations.md, "Traces"), sent over OTLP/HTTP.' }).optional(),
  authThrottle: authThrottleSchema.prefault({}),
  passwordThrottle: passwordThrottleSchema.prefault({}),
  introspectionLimit: introspectionLimitSchema.prefault({}),
  interactionLimit: interactionLimitSchema.prefault({}),
  connections: connectionsSchema.prefault({}),
  // Without a list nobody's forwarding headers are believed.
  trustedProxies: list(text().refine((entry) => parseAddressRange(entry) !== undefined, {
    error: (iss) => `expected an IPv4 or IPv6 address or CIDR range such as "10.0.0.0/8" or "fd00::/8", got ${describeValue(iss.input)}`,
  }), 'Reverse proxies in front of the service, as addresses or CIDR ranges, e.g. `["10.0.0.0/8", "fd00::/8"]`. Only for a connection from one of them is the client\'s address read from `forwardedHeader` and its scheme from `X-Forwarded-Proto`.').default(() => []),
  forwardedHeader: oneOf(['x-forwarded-for', 'forwarded'], 'The header the trusted proxies write: `"x-forwarded-for"` (nginx, HAProxy, most cloud load balancers) or `"forwarded"` (RFC 7239).').default('x-forwarded-for'),
  counters: text({ description: 'Where the failed-authentication, password and device wrong-code counters live: `"memory"` (each process counts on its own), `"store"` (the PostgreSQL store\'s database, shared by every node) or `"redis://[:password@]host:port[/db]"` (`rediss://` for TLS).' })
    .superRefine((counters, ctx) => {
      if (counters === 'memory' || counters === 'store' || /^rediss?:\/\/[^/]/.test(counters)) return;
      // Only the scheme is echoed: a Redis URL may carry a password.
      const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(counters)?.[0];
      ctx.addIssue({ code: 'custom', input: counters, message: `expected "memory", "store" or "redis://host:port", got ${scheme ? `a value starting with "${scheme}"` : describeValue(counters)}` });
    }).default('memory'),
  counterKeyPrefix: text({ max: 100, description: 'Prefix of every key in Redis, so deployments can share a server.' }).default('svc:'),
  tls: tlsSchema.optional(),
  mtls: mtlsSchema.prefault({}),
  dpop: dpopSchema.prefault({}),
  requestObjects: requestObjectsSchema.prefault({}),
  // One setting turns the whole profile on (issue 37); each client may say otherwise with its own `fapi2`.
  fapi2: oneOf(['off', 'security', 'message-signing'], 'The FAPI 2.0 profile for every client (docs/guides/fapi2.md): `"security"` enforces the FAPI 2.0 Security Profile (PAR, PKCE S256, confidential clients with `private_key_jwt` or mutual TLS, DPoP or certificate-bound tokens, codes of 60 s at most, https redirect URIs, PS256/ES256/EdDSA only), `"message-signing"` adds FAPI 2.0 Message Signing (signed request objects at PAR, JARM responses, signed introspection answers). A client breaking a rule stops start-up. Per client: `clients[].fapi2`.').default('off'),
  clientStores: clientStoresSchema.prefault({}),
  registration: registrationSchema.prefault({}),
  clientIdMetadataDocuments: clientIdMetadataDocumentsSchema.prefault({}),
  admin: adminSchema.optional(),
  backchannelLogout: backchannelLogoutSchema.prefault({}),
  passwordRules: checkedBy<PasswordRulesConfig>(
    // The checker names whole paths (`passwordRules.minLength`); the field's own issues are relative to it.
    (add, value) => checkPasswordRulesConfig({ add: (path, message) => add(path.replace(/^passwordRules\.?/, ''), message) }, value),
    'What a password set for a database user must meet: `{ minLength? (8), refused? ([]) }`; the username and more than 1024 characters are always refused (docs/guides/signing-users-in.md, "Users").',
  ).optional(),
  // Checked with the issuer beside it (an https issuer wants https assets): `cross-checks.ts`.
  pages: z.custom<PagesConfig>(() => true).optional().describe('The pages\' look: product name, logo, colours, style sheet, legal links, templates (docs/guides/signing-users-in.md, "Branding the pages").'),
  // ISSUE 34: the checkers name whole paths (`identityProviders[0].type`); the field's own issues are relative to it.
  identityProviders: checkedBy<IdentityProviderConfig[]>(
    (add, value) => checkIdentityProviders({ add: (path, message) => add(path.replace(/^identityProviders\.?/, ''), message) }, value),
    'Upstream OpenID Connect (`type: "oidc"`, with `issuer`) and OAuth 2.0 (`type: "oauth2"`, with `authorizationUrl`, `tokenUrl`, `userInfoUrl`) providers people may sign in with, each `{ name, displayName, clientId, clientSecret | privateKeyJwt, scopes?, claimMapping?, allowedEmailDomains?, requiredClaim?, domains? (login_hint domains that go straight to it), trustEmailVerified? (false), trustAmr? (false), logoutAtProvider? (false, oidc), timeout? (10) }` (docs/guides/signing-users-in.md, "Sign in with your identity provider").',
  ).optional(),
  // `hidePasswordForm` needs `identityProviders`: checked across both in `cross-checks.ts`.
  upstreamSignIn: checkedBy<UpstreamSignInConfig>(
    (add, value) => checkUpstreamSignIn({ add: (path, message) => add(path.replace(/^upstreamSignIn\.?/, ''), message) }, value),
    'How upstream sign-in shows and links accounts: `{ hidePasswordForm? (false), linkByVerifiedEmail? (false) }`.',
  ).optional(),
  smtp: smtpSchema.optional(),
  secondFactor: fields({
    enrolmentRequired: flag('Every user the database keeps must have a second factor: one without gets a grace sign-in with the password that leads straight to setting up one-time codes, and the request goes on once the first code is right (docs/guides/passkeys-and-one-time-codes.md).').default(false),
    passkeys: flag('Offer passkeys (WebAuthn): registered on `/account/second-factor`, used as the second factor after a password and to sign in without one. The issuer\'s host is the relying party id, so it must be a domain (not an IP address) served over https, or `localhost`. The passkey forms need JavaScript.').default(false),
  }, { description: 'One-time codes (TOTP), recovery codes and passkeys for the users the database keeps (issue 35).' }).prefault({}),
  userInfo: fields({
    requiredAcr: oneOf(['pwd', 'mfa'], '`"mfa"` (or `"pwd"`): the UserInfo endpoint answers only for a token whose sign-in met this class, else 401 with RFC 9470\'s `insufficient_user_authentication` and `acr_values` in the challenge (docs/guides/passkeys-and-one-time-codes.md).').optional(),
  }, { description: 'The UserInfo endpoint (OIDC Core §5.3).' }).prefault({}),
}, { expected: 'an object (export default { ... })' });

function didYouMean(found: string, known: readonly string[]): string {
  const name = closestName(found, known);
  return name === undefined ? '' : ` (did you mean "${name}"?)`;
}

/**
 * A client as `svc.config.ts` holds it: the service's fields, and those plugins declare
 * (`PluginClientFields`, which plugins fill in by declaration merging). Imported from the SDK's
 * index so the fields the SDK itself declares for first-party plugins are merged in too.
 */
export type ClientConfig = z.input<typeof clientSchema> & PluginClientFields;
// What `svc.config.ts` holds (every field optional but the parties themselves).
export type UserConfig = Omit<z.input<typeof userConfigSchema>, 'clients'> & { clients?: ClientConfig[] | undefined };
export type SecretConfig = z.input<typeof secretSchema>;
export type ApiScopeConfig = z.input<typeof apiScopeSchema>;
export type ApiResourceConfig = z.input<typeof apiResourceSchema>;
export type IdentityResourceConfig = z.input<typeof identityResourceSchema>;
export type UserConfig_User = z.input<typeof userSchema>;
export type SigningConfig = z.input<typeof signingSchema>;
export type DeviceFlowConfig = z.input<typeof deviceFlowSchema>;
export type LimitsConfig = NonNullable<UserConfig['limits']>;
export type MetricsConfig = NonNullable<UserConfig['metrics']>;
export type TracingConfig = NonNullable<UserConfig['tracing']>;
export type AuthThrottleConfig = z.input<typeof authThrottleSchema>;
export type PasswordThrottleConfig = z.input<typeof passwordThrottleSchema>;
export type InteractionLimitConfig = z.input<typeof interactionLimitSchema>;
export type IntrospectionLimitConfig = z.input<typeof introspectionLimitSchema>;
export type ConnectionsConfig = z.input<typeof connectionsSchema>;
export type TlsConfig = z.input<typeof tlsSchema>;
export type MtlsConfig = z.input<typeof mtlsSchema>;
export type DpopConfig = z.input<typeof dpopSchema>;
export type RequestObjectsConfig = z.input<typeof requestObjectsSchema>;
export type ClientStoresConfig = z.input<typeof clientStoresSchema>;
export type RegistrationConfig = z.input<typeof registrationSchema>;
export type ClientIdMetadataDocumentsConfig = z.input<typeof clientIdMetadataDocumentsSchema>;
export type AdminConfig = z.input<typeof adminSchema>;
export type SmtpConfig = z.input<typeof smtpSchema>;

export type TraceExporterName = 'otlp' | 'console';

/** Resolved from `TracingConfig` and the `OTEL_*` environment variables (`tracing-settings.ts`). */
export interface TracingSettings {
  readonly enabled: boolean;
  readonly exporter: TraceExporterName;
  /** The OTLP/HTTP traces URL; undefined: the exporter's own reading of `OTEL_EXPORTER_OTLP_*`. */
  readonly endpoint: string | undefined;
  readonly serviceName: string;
}

// The registered model (secrets, clients, API scopes and resources, identity resources), as the
// host holds it; plugins see it through the SDK's `Client` and the others (`src/sdk/model.ts`).
export type { ApiResource, ApiScope, Client, IdentityResource, Secret };

export type User = Resolved<z.output<typeof userSchema>>;

export type KeySource = { readonly path: string } | { readonly env: string };

/** The config after `userConfigSchema` (every default filled in), with what `resolve.ts` adds. */
type Parsed = z.output<typeof userConfigSchema>;

/** Complete and frozen: the only shape the rest of the service reads. */
export type ResolvedConfig = Resolved<Omit<Parsed, 'clients' | 'issuer' | 'signing' | 'workers' | 'tracing' | 'tls' | 'mtls' | 'deviceFlow' | 'pages' | 'apiScopes' | 'identityResources' | 'passwordRules' | 'identityProviders' | 'upstreamSignIn'> & {
  passwordRules: PasswordRules;
  /** With the fields plugins declare, as written (`plugin-client-fields.ts`). */
  clients: Client[];
  /** ISSUE 34: the upstream identity providers with their defaults (`identity-providers.ts`). */
  identityProviders: ResolvedUpstreamSignIn['identityProviders'];
  upstreamSignIn: ResolvedUpstreamSignIn['upstreamSignIn'];
  apiScopes: ApiScope[];
  identityResources: IdentityResource[];
  /** The pages' look, files resolved against the config's folder (`branding.ts`). */
  pages: ResolvedBranding;
  issuer: string;
  deviceFlow: Omit<Parsed['deviceFlow'], 'cookieSecret'>;
  /** `pageSecret`, or the same secret under its old name `deviceFlow.cookieSecret`. */
  pageSecret: string | undefined;
  /** One line per deprecated field the config still uses, logged once at start-up. */
  deprecations: string[];
  /** Absolute folder of the config file; relative paths were resolved against it. */
  configDir: string;
  /** False when `pluginDirs` is the default: a missing `./plugins` is then no error. */
  pluginDirsRequired: boolean;
  signing: Omit<Parsed['signing'], 'idTokenAlgorithms' | 'keys' | 'keyEncryptionKeys' | 'threads'> & {
    idTokenAlgorithms: SigningAlgorithm[];
    keys: KeySource[];
    keyEncryptionKeys: KeySource[];
    /** Signing threads; 0 signs on the event loop. */
    threads: number;
  };
  workers: number;
  tracing: TracingSettings;
  /** Absolute paths; `undefined` when a proxy terminates TLS. */
  tls: NonNullable<Parsed['tls']> | undefined;
  mtls: {
    /** Absolute path, or `undefined`. */
    clientCa: string | undefined;
    /** Lower-case header name, or `undefined`. */
    certificateHeader: string | undefined;
    certificateBoundAccessTokens: boolean;
    /** Without a trailing slash. */
    endpointAliasesBaseUrl: string;
  };
}>;
