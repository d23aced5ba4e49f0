/**
 * The service's registered model as plugins see it: clients, their secrets, API scopes and
 * resources, identity resources. Resolved from the deployment's config, complete and frozen.
 */

/** A secret ready for use: expiration parsed once at start-up. */
export interface Secret {
  readonly value: string;
  readonly type: string;
  readonly description: string | undefined;
  /** Epoch milliseconds, or `undefined` when the secret does not expire. */
  readonly expiresAt: number | undefined;
}

export interface Client {
  readonly clientId: string;
  readonly clientName?: string | undefined;
  readonly clientSecrets: readonly Secret[];
  readonly requireClientSecret: boolean;
  readonly allowedGrantTypes: readonly string[];
  readonly allowedScopes: readonly string[];
  readonly accessTokenLifetime: number;
  readonly accessTokenType: 'jwt' | 'reference';
  readonly allowOfflineAccess: boolean;
  readonly absoluteRefreshTokenLifetime: number;
  readonly slidingRefreshTokenLifetime: number;
  readonly refreshTokenReuseInterval: number;
  readonly deviceCodeLifetime: number;
  readonly pollingInterval: number;
  readonly properties: Readonly<Record<string, string>>;
  readonly allowedCorsOrigins: readonly string[];
  /** `undefined`: any method the client holds secrets for. */
  readonly tokenEndpointAuthMethods?: readonly string[] | undefined;
  readonly redirectUris: readonly string[];
  readonly postLogoutRedirectUris: readonly string[];
  /** OpenID Connect Back-Channel Logout: where a logout token is posted when a session the client was in ends. */
  readonly backchannelLogoutUri?: string | undefined;
  /** The client needs `sid` in its logout tokens (always sent). */
  readonly backchannelLogoutSessionRequired: boolean;
  readonly requirePkce: boolean;
  readonly requireConsent: boolean;
  /** Issue 35: sign-ins for this client need a second factor (`acr` `mfa`). */
  readonly requireMfa: boolean;
  readonly requirePushedAuthorization: boolean;
  /** Authorization requests must be signed request objects (RFC 9101 §10.5). */
  readonly requireRequestObject: boolean;
  /** JARM: the algorithm of its signed authorization responses; RS256 when absent. */
  readonly authorizationSignedResponseAlg?: string | undefined;
  readonly authorizationCodeLifetime: number;
  /** Access tokens are bound to the token request's TLS client certificate (RFC 8705 §3). */
  readonly requireCertificateBoundTokens: boolean;
  /** Every token request must carry a DPoP proof (RFC 9449). */
  readonly requireDPoP: boolean;
  /** The FAPI 2.0 profile the client is under (its own setting, else the global one); absent: off. */
  readonly fapi2?: 'off' | 'security' | 'message-signing' | undefined;
  /** ID tokens are signed with the first of these; empty: RS256. */
  readonly allowedIdentityTokenSigningAlgorithms: readonly string[];
  /** Every authorization, device authorization and token request must name its APIs with `resource` (RFC 8707). */
  readonly requireResourceIndicator: boolean;
  /**
   * The fields plugins declare (`Plugin.clientFields`), as written, each checked by its plugins
   * when the client was loaded; read one through its declaration's `read(client)`.
   */
  readonly pluginFields?: Readonly<Record<string, unknown>> | undefined;
}

/** A text in one language, or per language by BCP 47 tag: `{ en: 'Read your e-mail address', de: 'Ihre E-Mail-Adresse lesen' }`. */
export type LocalizedText = string | Readonly<Record<string, string>>;

export interface ApiScope {
  readonly name: string;
  /** The configured description: the string given, or of descriptions by language the English (else the first) one. */
  readonly description?: string | undefined;
  /** Descriptions by language tag, when the config gives them per language; the consent pages pick the reader's. */
  readonly descriptions?: Readonly<Record<string, string>> | undefined;
}

export interface ApiResource {
  readonly name: string;
  /**
   * Its resource indicator (RFC 8707 §2): an absolute URI without a fragment. When set, tokens
   * for the API carry it as `aud` in place of `name` (`audienceOf`).
   */
  readonly uri?: string | undefined;
  readonly scopes: readonly string[];
  readonly secrets: readonly Secret[];
  /** RFC 9701: the algorithm of its JWT introspection answers; RS256 when absent. */
  readonly introspectionSigningAlgorithm?: string | undefined;
  /** Issue 35: the `acr` (`pwd` or `mfa`) a user's sign-in must meet for a token for this API. */
  readonly requiredAcr?: 'pwd' | 'mfa' | undefined;
}

export interface IdentityResource {
  readonly name: string;
  /** As `ApiScope.description`. */
  readonly description?: string | undefined;
  readonly descriptions?: Readonly<Record<string, string>> | undefined;
  readonly claims: readonly string[];
}

