/**
 * The two shapes of configuration: `UserConfig` is what `svc.config.ts` holds (everything
 * optional but the parties themselves, defaults documented in `defaults.ts`); `ResolvedConfig`
 * is complete and frozen, and is the only shape the rest of the service reads.
 * Field names mirror IdentityServer's model in camelCase, so configs move over.
 */
import type { JwsAlgorithm } from '../sdk/jws.js';
import type { ApiResource, ApiScope, Client, IdentityResource, Secret } from '../sdk/model.js';
// ISSUE 34 (upstream sign-in): its fields live in identity-providers.ts.
import type { IdentityProviderConfig, ResolvedUpstreamSignIn, UpstreamSignInConfig } from './identity-providers.js';

/** A secret held by a client or an API resource (spec §2.1). */
export interface SecretConfig {
  /**
   * Shared secret: base64 of the SHA-256 (or SHA-512) digest of the UTF-8 secret, as made by
   * `hashSecret()` or `svc hash-secret`. Certificate secret: the leaf X.509 certificate, base64 DER.
   */
  value: string;
  /** `"SharedSecret"` (default), `"X509CertificateBase64"`, `"JsonWebKey"`, or a plugin's own type. */
  type?: string;
  /** Shown in logs to tell secrets apart; never the secret itself. */
  description?: string;
  /** ISO 8601 date-time after which the secret no longer authenticates, e.g. `"2027-01-01T00:00:00Z"`. */
  expiration?: string;
}

export interface ClientConfig {
  clientId: string;
  clientName?: string;
  clientSecrets?: SecretConfig[];
  /** `false` makes a public client that authenticates with `client_id` alone. Default `true`. */
  requireClientSecret?: boolean;
  /** e.g. `["client_credentials"]`, or an extension grant's `grantType` such as `"delegation"`. */
  allowedGrantTypes: string[];
  /** API scopes and identity resources the client may request. */
  allowedScopes: string[];
  /** Access token lifetime in seconds. Default 3600. */
  accessTokenLifetime?: number;
  /** `"jwt"` (default) or `"reference"`: an opaque handle whose claims live in the store. */
  accessTokenType?: 'jwt' | 'reference';
  /** Lets the client request `offline_access` and receive refresh tokens. Default `false`. */
  allowOfflineAccess?: boolean;
  /** Absolute refresh token lifetime in seconds. Default 2592000 (30 days). */
  absoluteRefreshTokenLifetime?: number;
  /** Sliding refresh token lifetime in seconds; 0 turns sliding off. Default 1296000 (15 days). */
  slidingRefreshTokenLifetime?: number;
  /**
   * Seconds after a refresh token is used in which presenting it again is refused
   * (`invalid_grant`) without revoking its family: two tabs, or a retry after a time-out, send
   * the same token at once. Later reuse revokes the family (RFC 9700 §4.14.2). 0 turns the
   * grace off. Default 5.
   *
   * @example refreshTokenReuseInterval: 0 // every second use revokes the family
   */
  refreshTokenReuseInterval?: number;
  /** Device code lifetime in seconds (RFC 8628). Default 300. */
  deviceCodeLifetime?: number;
  /** Minimum seconds between device code polls (RFC 8628 §3.5). Default 5. */
  pollingInterval?: number;
  /** Free-form settings read by plugins, e.g. `{ "privateKeyJwt.audience": "compat" }`. */
  properties?: Record<string, string>;
  /** Browser origins allowed to call the token, revocation and device endpoints, e.g. `["https://app.example.com"]`. */
  allowedCorsOrigins?: string[];
  /**
   * The only client authentication methods this client may use (RFC 7591 §2's
   * `token_endpoint_auth_method`, as a list so a client can move from one method to another),
   * e.g. `["private_key_jwt"]`: a leftover shared secret then no longer authenticates it.
   * `"none"` is for public clients. Default: any method the client holds secrets for.
   */
  tokenEndpointAuthMethods?: string[];
  /**
   * The API resources this client fronts, by name, e.g. `["api1"]`: a user's token it exchanges
   * (delegation's `token`, token exchange's `subject_token`) must be addressed to one of them
   * (`aud`). Without it the client can exchange no token. Default `[]`.
   */
  allowedSubjectTokenAudiences?: string[];
  /**
   * Where the authorization endpoint may send the browser back, compared as exact strings
   * (RFC 9700 §2.1); a loopback `http://127.0.0.1/cb` of a native app may differ only in port
   * (RFC 8252 §7.3). Required with `authorization_code`, e.g. `["https://app.example.com/callback"]`.
   */
  redirectUris?: string[];
  /** Where `/connect/endsession` may send the browser after logout, exact match. Default `[]`. */
  postLogoutRedirectUris?: string[];
  /** Authorization requests must carry an S256 `code_challenge` (RFC 7636). Default `true`; public clients always need it. */
  requirePkce?: boolean;
  /** The user approves the requested scopes on a consent page before a code is issued. Default `false`. */
  requireConsent?: boolean;
  /** Authorization requests must come through `/connect/par` (RFC 9126). Default `false`. */
  requirePushedAuthorization?: boolean;
  /** Authorization code lifetime in seconds. Default 300. */
  authorizationCodeLifetime?: number;
  /**
   * Every access token of this client is bound to the TLS client certificate of its token request
   * (RFC 8705 §3, `cnf["x5t#S256"]`), and a public client's refresh tokens too (§4); a token
   * request without a certificate is `invalid_request`. Default `false`.
   */
  requireCertificateBoundTokens?: boolean;
  /**
   * Every token request must carry a DPoP proof (RFC 9449), so every access token of the client
   * is bound to its key; a request without one is `invalid_request`. IdentityServer's name.
   * Default `false` (a proof is honoured when sent).
   */
  requireDPoP?: boolean;
  /**
   * The algorithm of this client's ID tokens: the first entry, which must be one of
   * `signing.idTokenAlgorithms` (OIDC Dynamic Client Registration's `id_token_signed_response_alg`).
   * IdentityServer's name, a list so configs move over. Default `[]`: RS256, OIDC Core's default.
   *
   * @example allowedIdentityTokenSigningAlgorithms: ["ES256"] // about ten times cheaper to sign than RS256
   */
  allowedIdentityTokenSigningAlgorithms?: SigningAlgorithm[];
}

export interface ApiScopeConfig {
  name: string;
  description?: string;
}

export interface ApiResourceConfig {
  /** The resource's name: the `aud` of tokens for its scopes, and its id at introspection. */
  name: string;
  scopes: string[];
  /** Secrets the API uses to authenticate at the introspection endpoint. */
  secrets?: SecretConfig[];
}

export interface IdentityResourceConfig {
  /** e.g. `"openid"`, `"profile"`, `"email"`. */
  name: string;
  description?: string;
  /** User claims the resource releases, e.g. `["name", "family_name"]`. */
  claims: string[];
}

export interface UserConfig_User {
  subjectId: string;
  username: string;
  /** PHC scrypt string: `$scrypt$ln=<log2 N>,r=<r>,p=<p>$<salt>$<hash>` (see `svc hash-password`). */
  password: string;
  claims?: Record<string, string | number | boolean>;
}

export interface SigningConfig {
  /** Algorithm of access tokens. Default `"ES256"` (see README for measurements). */
  accessTokenAlgorithm?: SigningAlgorithm;
  /**
   * The algorithms ID tokens may be signed with, listed in discovery as
   * `id_token_signing_alg_values_supported`; the service keeps a key for each. A client picks one
   * with `allowedIdentityTokenSigningAlgorithms`. Must include RS256, which OpenID Connect
   * Discovery §3 requires. Default `["RS256"]`.
   *
   * @example idTokenAlgorithms: ["RS256", "ES256"]
   */
  idTokenAlgorithms?: SigningAlgorithm[];
  /**
   * Keys from outside the store; when given they take precedence over managed keys.
   * Each is a path (relative to the config file) to a PEM PKCS#8 or private JWK file, or
   * `{ env: "NAME" }` for an environment variable holding either.
   */
  keys?: Array<string | { path: string } | { env: string }>;
  /**
   * Keys that encrypt the signing keys the service creates (AES-256-GCM), so the store holds no
   * usable private key: each 32 random bytes as base64 or hex (`openssl rand -base64 32`), in a
   * file or an environment variable, never in the config itself, e.g. `[{ env: "SVC_KEK" }]`.
   * The first seals new keys; the others still open what they sealed (rotation; see `svc keys`).
   * Default: none (keys stored as plain JWKs).
   */
  keyEncryptionKeys?: Array<{ path: string } | { env: string }>;
  /** Seconds between automatic key rotations. Default 7776000 (90 days). */
  rotationInterval?: number;
  /** Seconds a new key is published before it signs. Default 3600. */
  propagationTime?: number;
  /** Seconds between reloads of the key set from the store. Default 60. */
  refreshInterval?: number;
  /**
   * Sign access tokens and ID tokens on this many worker threads instead of the event loop, so
   * one process uses more than one core for its signatures; `"auto"` is one per core. Default 0
   * (sign inline). See README "Performance" for when it pays.
   * @example threads: "auto"
   */
  threads?: number | 'auto';
}

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

export interface DeviceFlowConfig {
  /** `"base20"` (default, `BCDF-GHJK`) or `"numeric"` (`123-456-789`). */
  userCodeFormat?: 'base20' | 'numeric';
  /** Wrong user codes allowed per client address per window before it is told to wait. Default 10. */
  maxFailedAttempts?: number;
  /** Window of the rate limit in seconds. Default 300. */
  failedAttemptsWindow?: number;
  /** Secret that signs the sign-in cookie; default: a random secret created once in the store (set it in production). */
  cookieSecret?: string;
  /** Device authorizations one address may start per window before it gets 429. Default 60. */
  maxAuthorizationsPerAddress?: number;
  /** Device authorizations one client may start per window (from all addresses) before it gets 429. Default 6000. */
  maxAuthorizationsPerClient?: number;
  /** Window of the two limits above in seconds. Default 60. */
  authorizationsWindow?: number;
}

export interface LimitsConfig {
  /** Largest request body in bytes. Default 65536 (64 KiB). */
  bodyBytes?: number;
  /** Most form parameters in one request. Default 50. */
  parameters?: number;
}

export interface MetricsConfig {
  /** Serve `GET /metrics` (Prometheus text format). Default `false`. */
  enabled?: boolean;
  /** When set, `/metrics` requires `Authorization: Bearer <bearerToken>`. */
  bearerToken?: string;
}

/**
 * OpenTelemetry tracing (README, "Traces"): spans of each request, client authentication, the
 * grant, token issuance, signing and store calls, sent over OTLP/HTTP. Off unless `enabled` is
 * true or the standard `OTEL_*` environment variables configure an exporter.
 */
export interface TracingConfig {
  /** Default: on when `OTEL_TRACES_EXPORTER` or `OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT` is set; `OTEL_SDK_DISABLED=true` wins. */
  enabled?: boolean;
  /** The OTLP/HTTP traces URL, e.g. `"http://collector:4318/v1/traces"`. Default: from `OTEL_EXPORTER_OTLP_*`, else `http://localhost:4318/v1/traces`. */
  endpoint?: string;
  /** The `service.name` of the spans. Default `OTEL_SERVICE_NAME`, else `"svc-token-service"`. */
  serviceName?: string;
}

export type TraceExporterName = 'otlp' | 'console';

/** Resolved from `TracingConfig` and the `OTEL_*` environment variables (`tracing-settings.ts`). */
export interface TracingSettings {
  readonly enabled: boolean;
  readonly exporter: TraceExporterName;
  /** The OTLP/HTTP traces URL; undefined: the exporter's own reading of `OTEL_EXPORTER_OTLP_*`. */
  readonly endpoint: string | undefined;
  readonly serviceName: string;
}

export interface AuthThrottleConfig {
  /** Failed authentications per (client id, address) before back-off starts. Default 5. */
  pairThreshold?: number;
  /** Failed authentications per address (any client id) before back-off starts. Default 50. */
  addressThreshold?: number;
  /** Longest back-off in seconds. Default 300. */
  maxDelay?: number;
  /** Seconds without a failure (once any back-off has ended) after which a counter is forgotten. Default 900. */
  window?: number;
}

/** Failed password-grant sign-ins, throttled with the same back-off as `authThrottle`. */
export interface PasswordThrottleConfig {
  /** Failed sign-ins per (username, address) before back-off starts. Default 5. */
  pairThreshold?: number;
  /** Failed sign-ins per username (from all addresses) before back-off starts. Default 20. */
  userThreshold?: number;
  /** Failed sign-ins per address (any username) before back-off starts. Default 50. */
  addressThreshold?: number;
  /** Longest back-off in seconds. Default 300. */
  maxDelay?: number;
  /** Seconds without a failure (once any back-off has ended) after which a counter is forgotten. Default 900. */
  window?: number;
}

/**
 * Authorization interactions started (sign-in and consent pages waiting for a person), each a
 * record in the store for 15 minutes written before anyone has signed in.
 */
export interface InteractionLimitConfig {
  /** Interactions started per client address per window before it gets a 429 page. Default 60. */
  maxPerAddress?: number;
  /** Interactions started in all (every address, every node with shared `counters`) per window. Default 3000. */
  maxTotal?: number;
  /** Window in seconds. Default 60. */
  window?: number;
}

/** RFC 7662 §4: limits token scanning through the introspection endpoint. */
export interface IntrospectionLimitConfig {
  /** Inactive answers (unknown, expired or other APIs' tokens) per API resource per window before it gets 429. Default 6000. */
  maxInactive?: number;
  /** Window in seconds. Default 60. */
  window?: number;
}

/** Bounds on how long a connection may hold a socket without doing its part. Milliseconds, as Node's own settings. */
export interface ConnectionsConfig {
  /** A new connection that sends nothing for this long is closed, without an answer. Default 5000. */
  firstByteTimeout?: number;
  /** A request's headers must have arrived this long after it began; otherwise 408. Default 10000. */
  headersTimeout?: number;
  /** A whole request (headers and body) must have arrived this long after it began; otherwise 408. Default 30000. */
  requestTimeout?: number;
  /** An idle kept-alive connection is closed after this long without a new request. Default 5000. */
  keepAliveTimeout?: number;
}

/**
 * The service terminates TLS itself (https) instead of sitting behind a TLS-terminating proxy.
 * Paths are relative to the config file.
 *
 * @example tls: { certificate: './tls/server.pem', key: './tls/server.key', requestClientCertificate: true }
 */
export interface TlsConfig {
  /** PEM certificate of the service, followed by any intermediates. */
  certificate: string;
  /** PEM private key of that certificate (unencrypted PKCS#8, PKCS#1 or SEC1). */
  key: string;
  /**
   * Ask every client for a certificate in the handshake (mutual TLS, RFC 8705). A missing or bad
   * certificate never fails the handshake: client authentication judges it and answers
   * `invalid_client`. Default `false`: browsers would offer the user a certificate picker.
   */
  requestClientCertificate?: boolean;
}

/** Mutual TLS (RFC 8705): where client certificates come from and what they bind. */
export interface MtlsConfig {
  /**
   * PEM file (relative to the config file) of the CAs that issue client certificates for
   * `tls_client_auth` (`X509Name` secrets): a certificate counts as chained when one of these
   * issued it. Put intermediates in the file too. Default: none (only pinned certificates,
   * `X509Thumbprint` and `X509CertificateBase64`, authenticate).
   */
  clientCa?: string;
  /**
   * The request header a TLS-terminating proxy in `trustedProxies` writes the client certificate
   * into, as PEM, URL-encoded (nginx: `proxy_set_header X-SSL-Client-Cert $ssl_client_escaped_cert;`).
   * From any other address the header is ignored. Default: none (no proxy certificates).
   */
  certificateHeader?: string;
  /** Bind the access tokens of every client that authenticated with its certificate (RFC 8705 §3). Default `false`. */
  certificateBoundAccessTokens?: boolean;
  /**
   * Base URL of a host that asks for client certificates when the issuer's host does not
   * (RFC 8705 §5 `mtls_endpoint_aliases`), e.g. `"https://mtls.example.com"`. Default: the issuer.
   */
  endpointAliasesBaseUrl?: string;
}

/** DPoP (RFC 9449): proof-of-possession tokens. Always accepted; these settings tune the checks. */
export interface DpopConfig {
  /**
   * The asymmetric JWS algorithms a proof may be signed with, listed in discovery as
   * `dpop_signing_alg_values_supported`. Default `["ES256", "PS256", "RS256", "EdDSA", "Ed25519"]`.
   * @example signingAlgValues: ["ES256"]
   */
  signingAlgValues?: string[];
  /** Seconds a proof's `iat` may lie in the past. Default 300. */
  proofMaxAge?: number;
  /** Seconds a proof's `iat` may lie in the future (clock differences). Default 10. */
  clockSkew?: number;
  /**
   * Proofs must carry a server nonce (RFC 9449 §8): a proof without one (or with a stale one) is
   * answered `use_dpop_nonce` with a fresh nonce in the `DPoP-Nonce` header. Nonces are an HMAC
   * of a time window, valid on every node that shares the store. Default `false`.
   */
  requireNonce?: boolean;
  /** Seconds a nonce stays valid (at least this long, at most twice it). Default 300. */
  nonceLifetime?: number;
}

export interface UserConfig {
  /** Issuer identifier URL. Default `http://localhost:<port>`. */
  issuer?: string;
  /** Default 5000. */
  port?: number;
  /** Default `"127.0.0.1"`. */
  host?: string;
  /**
   * The deployment's own plugin folders, relative to the config file, loaded after the package's
   * plugins. Default `["./plugins"]`, skipped when that folder does not exist; a folder listed
   * here must exist. Example: `["./plugins", "/opt/svc-plugins"]`.
   */
  pluginDirs?: string[];
  /**
   * The first-party plugins shipped inside the package to load, by name. Default: all of them,
   * `["shared-secret", "private-key-jwt", "delegation", "token-exchange"]`; `[]` loads none (for
   * a deployment that brings its own, e.g. a different shared-secret validator).
   */
  packagePlugins?: string[];
  /** Options for each plugin, by plugin name, e.g. `{ "private-key-jwt": { clockSkew: 60 } }`. */
  plugins?: Record<string, Record<string, unknown>>;
  /** `"memory"`, `"sqlite:<path>"` (default `sqlite:./data/svc.db`) or `"postgres://..."`. */
  store?: string;
  /** Seconds between sweeps of expired records. Default 300. */
  cleanupInterval?: number;
  clients?: ClientConfig[];
  apiScopes?: ApiScopeConfig[];
  apiResources?: ApiResourceConfig[];
  identityResources?: IdentityResourceConfig[];
  users?: UserConfig_User[];
  signing?: SigningConfig;
  deviceFlow?: DeviceFlowConfig;
  limits?: LimitsConfig;
  /** `"fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent"`. Default `"info"`. */
  logLevel?: string;
  /** `1` (default) or `"auto"` for one worker per core. */
  workers?: number | 'auto';
  metrics?: MetricsConfig;
  tracing?: TracingConfig;
  authThrottle?: AuthThrottleConfig;
  passwordThrottle?: PasswordThrottleConfig;
  introspectionLimit?: IntrospectionLimitConfig;
  interactionLimit?: InteractionLimitConfig;
  connections?: ConnectionsConfig;
  /**
   * Reverse proxies (load balancers) in front of the service, as addresses or CIDR ranges, IPv4
   * or IPv6, e.g. `["10.0.0.0/8", "fd00::/8"]`. Only for a connection from one of them is the
   * client's address read from `forwardedHeader` and its scheme from `X-Forwarded-Proto`
   * (`proto=`); from anyone else those headers are ignored. Every limit, log line and event keys
   * on that address. Default `[]` (the connection's own address).
   */
  trustedProxies?: string[];
  /**
   * The header the trusted proxies write: `"x-forwarded-for"` (default; nginx, HAProxy, most
   * cloud load balancers) or `"forwarded"` (RFC 7239). Only that one is read: the other is
   * whatever the client sent.
   */
  forwardedHeader?: 'x-forwarded-for' | 'forwarded';
  /**
   * Where the failed-authentication, password and device wrong-code counters live:
   * `"memory"` (default; each process counts on its own, for a single node), `"store"` (the
   * PostgreSQL store's database, shared by every node) or `"redis://[:password@]host:port[/db]"`
   * (`rediss://` for TLS). A counter store that cannot be reached answers 503 to the callers it
   * would have counted, never lets them through.
   */
  counters?: string;
  /** Prefix of every key in Redis, so deployments can share a server. Default `"svc:"`. */
  counterKeyPrefix?: string;
  /** Terminate TLS in the service itself. Default: plain http (a proxy terminates TLS). */
  tls?: TlsConfig;
  /** Mutual TLS client certificates (RFC 8705). Default: none read. */
  mtls?: MtlsConfig;
  dpop?: DpopConfig;
  /** Where clients and API resources come from besides this file (issue 19). */
  clientStores?: ClientStoresConfig;
  /** Dynamic client registration (RFC 7591, RFC 7592) at `/connect/register`. Off by default. */
  registration?: RegistrationConfig;
  // ISSUE 34 (upstream sign-in) — see identity-providers.ts.
  /** Upstream OpenID Connect and OAuth 2.0 providers people may sign in with (README "Sign in with your identity provider"). */
  identityProviders?: IdentityProviderConfig[];
  /** How upstream sign-in shows and links accounts. */
  upstreamSignIn?: UpstreamSignInConfig;
}

/**
 * What a client may register itself as. Registration needs an initial access token, made with
 * `svc clients registration-token`; a registered client lands in the database store.
 */
export interface RegistrationConfig {
  /** Serve `/connect/register` and list it in discovery. Default `false`. */
  enabled?: boolean;
  /** Grant types a registered client may have. Default `["authorization_code", "refresh_token", "client_credentials"]`. */
  allowedGrantTypes?: string[];
  /** Scopes a registered client may have, e.g. `["openid", "api1.read"]`. Default `[]`: registration must list them. */
  allowedScopes?: string[];
  /** `token_endpoint_auth_method` values allowed. Default `["client_secret_basic", "client_secret_post"]`; add `"none"` for public clients. */
  allowedAuthMethods?: string[];
  /**
   * Which redirect URIs are accepted: `"https"` (default: only `https://`), or the native-app
   * policy `"https-or-loopback"` (also `http://127.0.0.1`, `[::1]` or `localhost` with any port,
   * RFC 8252 §7.3). Before issue 33 the default was `"https-or-loopback"`.
   */
  redirectUris?: 'https' | 'https-or-loopback';
  /**
   * Seconds a registration access token (RFC 7592 §3) opens its client's configuration endpoint;
   * every `PUT` answers a new one. Default 7776000 (90 days).
   *
   * @example registrationAccessTokenLifetime: 30 * 86400
   */
  registrationAccessTokenLifetime?: number;
}

export interface ClientStoresConfig {
  /**
   * Clients and API resources kept in the store's database, managed with `svc clients` and
   * `svc apis` while the service runs. Default `true` (an empty table changes nothing).
   */
  database?: boolean;
  /**
   * Seconds within which a change in a store (the database, a plugin's) reaches every node:
   * each node asks the store for its version this often and reloads when it moved. Default 5.
   *
   * @example clientStores: { refreshInterval: 30 } // fewer reads, slower propagation
   */
  refreshInterval?: number;
}

// The registered model (secrets, clients, API scopes and resources, identity resources) is what
// plugins see too, so it is defined in the SDK; the host's resolved config holds those types.
export type { ApiResource, ApiScope, Client, IdentityResource, Secret };

export interface User {
  readonly subjectId: string;
  readonly username: string;
  readonly password: string;
  readonly claims: Readonly<Record<string, string | number | boolean>>;
}

export type KeySource = { readonly path: string } | { readonly env: string };

export interface ResolvedConfig {
  readonly issuer: string;
  readonly port: number;
  readonly host: string;
  /** Absolute folder of the config file; relative paths were resolved against it. */
  readonly configDir: string;
  readonly pluginDirs: readonly string[];
  /** False when `pluginDirs` is the default: a missing `./plugins` is then no error. */
  readonly pluginDirsRequired: boolean;
  readonly packagePlugins: readonly string[];
  readonly plugins: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  readonly store: string;
  readonly cleanupInterval: number;
  readonly clients: readonly Client[];
  readonly apiScopes: readonly ApiScope[];
  readonly apiResources: readonly ApiResource[];
  readonly identityResources: readonly IdentityResource[];
  readonly users: readonly User[];
  readonly signing: {
    readonly accessTokenAlgorithm: SigningAlgorithm;
    readonly idTokenAlgorithms: readonly SigningAlgorithm[];
    readonly keys: readonly KeySource[];
    readonly keyEncryptionKeys: readonly KeySource[];
    readonly rotationInterval: number;
    readonly propagationTime: number;
    readonly refreshInterval: number;
    /** Signing threads; 0 signs on the event loop. */
    readonly threads: number;
  };
  readonly deviceFlow: {
    readonly userCodeFormat: 'base20' | 'numeric';
    readonly maxFailedAttempts: number;
    readonly failedAttemptsWindow: number;
    readonly cookieSecret: string | undefined;
    readonly maxAuthorizationsPerAddress: number;
    readonly maxAuthorizationsPerClient: number;
    readonly authorizationsWindow: number;
  };
  readonly limits: { readonly bodyBytes: number; readonly parameters: number };
  readonly logLevel: string;
  readonly workers: number;
  readonly metrics: { readonly enabled: boolean; readonly bearerToken: string | undefined };
  readonly tracing: TracingSettings;
  readonly authThrottle: { readonly pairThreshold: number; readonly addressThreshold: number; readonly maxDelay: number; readonly window: number };
  readonly passwordThrottle: {
    readonly pairThreshold: number;
    readonly userThreshold: number;
    readonly addressThreshold: number;
    readonly maxDelay: number;
    readonly window: number;
  };
  readonly introspectionLimit: { readonly maxInactive: number; readonly window: number };
  readonly interactionLimit: { readonly maxPerAddress: number; readonly maxTotal: number; readonly window: number };
  readonly connections: {
    readonly firstByteTimeout: number;
    readonly headersTimeout: number;
    readonly requestTimeout: number;
    readonly keepAliveTimeout: number;
  };
  readonly trustedProxies: readonly string[];
  readonly forwardedHeader: 'x-forwarded-for' | 'forwarded';
  readonly counters: string;
  readonly counterKeyPrefix: string;
  /** Absolute paths; `undefined` when a proxy terminates TLS. */
  readonly tls: { readonly certificate: string; readonly key: string; readonly requestClientCertificate: boolean } | undefined;
  readonly mtls: {
    /** Absolute path, or `undefined`. */
    readonly clientCa: string | undefined;
    /** Lower-case header name, or `undefined`. */
    readonly certificateHeader: string | undefined;
    readonly certificateBoundAccessTokens: boolean;
    /** Without a trailing slash. */
    readonly endpointAliasesBaseUrl: string;
  };
  readonly dpop: {
    readonly signingAlgValues: readonly string[];
    readonly proofMaxAge: number;
    readonly clockSkew: number;
    readonly requireNonce: boolean;
    readonly nonceLifetime: number;
  };
  readonly clientStores: { readonly database: boolean; readonly refreshInterval: number };
  readonly registration: {
    readonly enabled: boolean;
    readonly allowedGrantTypes: readonly string[];
    readonly allowedScopes: readonly string[];
    readonly allowedAuthMethods: readonly string[];
    readonly redirectUris: 'https' | 'https-or-loopback';
    readonly registrationAccessTokenLifetime: number;
  };
  // ISSUE 34 (upstream sign-in) — see identity-providers.ts.
  readonly identityProviders: ResolvedUpstreamSignIn['identityProviders'];
  readonly upstreamSignIn: ResolvedUpstreamSignIn['upstreamSignIn'];
}
