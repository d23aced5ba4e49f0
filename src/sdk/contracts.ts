/**
 * The contracts a plugin implements. First-party plugins (`plugins/shared-secret`,
 * `plugins/private-key-jwt`, `plugins/delegation`, `plugins/token-exchange`) and the standard
 * grants (`src/grants`) use exactly these, nothing more. This module imports nothing from the
 * host: the host implements these contracts.
 */
import type { OAuthError, TokenRequestErrorCode } from './errors.js';
import type { ApiResource, ApiScope, Client, IdentityResource, Secret } from './model.js';
import type { AssertionAudienceForm, EventSink } from './events.js';
import type { JsonValue } from './json.js';
import type { X509Certificate } from 'node:crypto';
import type { DpopProofSummary } from './dpop.js';
import type { CompactJws, JwsAlgorithm } from './jws.js';
import type { ClientField } from './client-fields.js';

export type { TokenRequestErrorCode };

export type { AssertionAudienceForm, JsonValue };

/**
 * The TLS client certificate of a request (mutual TLS, RFC 8705), read by the host once per
 * request: from the service's own handshake, or from the header a proxy in `trustedProxies`
 * writes (`mtls.certificateHeader`). The handshake never fails for a missing or bad certificate;
 * judging it is client authentication's job.
 */
export interface ClientCertificate {
  /** The client's (leaf) certificate, parsed. */
  readonly certificate: X509Certificate;
  /** base64url SHA-256 of the certificate's DER: its `x5t#S256` (RFC 8705 §3.1). */
  readonly thumbprint: string;
  /**
   * One of the CAs in `mtls.clientCa` issued it (its signature verified, that CA within its own
   * validity) or, when the service terminates TLS, the handshake verified its chain to them.
   * The leaf's own validity dates are the validators' to check.
   */
  readonly issuedByTrustedCa: boolean;
  /** `"tls"`: the service's own handshake; `"proxy"`: a trusted proxy's header. */
  readonly source: 'tls' | 'proxy';
}

/** What a secret parser sees of a request: plain values, no HTTP framework. */
export interface CredentialSource {
  /** Form parameters, every value a single string (duplicates were already rejected). */
  readonly params: ReadonlyMap<string, string>;
  /** The raw `Authorization` header, if any. */
  readonly authorization: string | undefined;
  /** Which endpoint is authenticating the caller, e.g. `"token"`, `"introspection"`. */
  readonly endpoint: string;
  /** The caller's network address, when known; behind a proxy in `trustedProxies`, the client's forwarded one. */
  readonly remoteAddress?: string | undefined;
  /** The TLS client certificate the caller presented, when mutual TLS is set up and it sent one. */
  readonly clientCertificate?: ClientCertificate | undefined;
}

/** Credentials a parser found. */
export interface ParsedSecret {
  /** The client id (or API resource name) the credentials claim. */
  readonly id: string;
  /** The credential itself: a plain shared secret, a JWT assertion, ... Never logged. */
  readonly credential: string;
  /** What kind of credential this is; selects validators, e.g. `"SharedSecret"`. */
  readonly type: string;
  /**
   * What the parser already learned from the credential (e.g. a decoded JWT), handed to the
   * validators as is, so they need not decode it again. Never logged.
   */
  readonly decoded?: unknown;
}

/**
 * A form parameter a contribution reads. The host builds its tables from these declarations at
 * start-up: the length cap every request is held to, and which parameters are credentials.
 */
export interface ParameterDeclaration {
  readonly name: string;
  /** Longest accepted value in characters; a longer one is `invalid_request`. */
  readonly maxLength: number;
  /**
   * A credential (a secret, an assertion): it never reaches a grant's `raw` parameters, a log
   * line or an event. Secret parsers declare their credential parameters this way.
   */
  readonly credential?: boolean;
  /**
   * A secret the contribution itself reads (a token to exchange, an API key): it reaches the
   * grant that declares it, but never a log line (it is redacted) or an event.
   */
  readonly secret?: boolean;
}

/**
 * Finds credentials in a request. Returns `undefined` when its kind of credential is absent;
 * throws an `InvalidClient` when present but malformed (e.g. a Basic header that is not base64).
 *
 * @example
 * const bodyParser: SecretParser = {
 *   authenticationMethod: 'client_secret_post',
 *   parse: ({ params }) => {
 *     const id = params.get('client_id'), secret = params.get('client_secret');
 *     return id && secret ? { id, credential: secret, type: 'SharedSecret' } : undefined;
 *   },
 * };
 */
export interface SecretParser {
  /** Authentication method name as in discovery, e.g. `"client_secret_basic"`. */
  readonly authenticationMethod: string;
  /**
   * The `ParsedSecret.type` this parser produces, e.g. `"SharedSecret"`. Lets start-up check that a
   * client pinning this method (`tokenEndpointAuthMethods`) holds a secret that can be checked.
   */
  readonly parsedSecretType?: string;
  /** Extra discovery metadata this method implies, merged into the discovery document. */
  readonly discoveryMetadata?: Readonly<Record<string, JsonValue>>;
  /** The form parameters this parser reads; mark the ones that carry the credential. */
  readonly parameters?: readonly ParameterDeclaration[];
  /**
   * The credential comes from the connection (the TLS client certificate), not from the request.
   * Such a parser counts only when no other parser found credentials: a client may hold a
   * certificate at the TLS layer to bind its tokens (RFC 8705 §3) while it authenticates another
   * way. Discovery lists such methods only when the service can receive client certificates.
   */
  readonly fromConnection?: boolean;
  parse(source: CredentialSource): ParsedSecret | undefined | Promise<ParsedSecret | undefined>;
}

/** Who is authenticating: a client at the token endpoint, or an API at introspection. */
export type SecretHolder =
  | { readonly kind: 'client'; readonly client: Client }
  | { readonly kind: 'apiResource'; readonly apiResource: ApiResource };

export interface SecretValidationContext {
  readonly parsed: ParsedSecret;
  /** The holder's secrets of the types this validator declared, already filtered to unexpired ones. */
  readonly secrets: readonly Secret[];
  readonly holder: SecretHolder;
  readonly endpoint: string;
}

/** What a validator saw of credentials it could attribute to the holder, for metrics. Never the credential. */
export interface ValidationObservations {
  /** The `aud` form of a client assertion whose signature verified with the holder's key. */
  readonly assertionAudience?: AssertionAudienceForm;
}

/** `reason` is written to the log only; the caller always sees the same `invalid_client`. */
export type SecretValidationResult =
  | ({ readonly success: true } & ValidationObservations)
  | ({ readonly success: false; readonly reason: string } & ValidationObservations);

/**
 * Judges parsed credentials against a holder's secret definitions. Any one validator succeeding
 * authenticates the caller.
 */
export interface SecretValidator {
  /** The `ParsedSecret.type` values this validator judges, e.g. `["SharedSecret"]`. */
  readonly parsedSecretTypes: readonly string[];
  /** The secret definition `type` values it checks against, e.g. `["SharedSecret"]`. */
  readonly secretTypes: readonly string[];
  validate(context: SecretValidationContext): SecretValidationResult | Promise<SecretValidationResult>;
}

/** Whether a client's key made a signature; `reason` is for the log only. */
export type ClientSignatureResult = { readonly success: true } | { readonly success: false; readonly reason: string };

/**
 * Verifies a JWS a client signed with the private half of a key it registered as a secret: a
 * signed request object (RFC 9101). The plugin that reads those secrets provides it
 * (`private-key-jwt`, for `X509CertificateBase64` and `JsonWebKey`), so the host and the token
 * endpoint find a client's keys the same way. The host has already decided that `alg` is
 * acceptable and checks the claims itself; the verifier answers only "did one of these keys sign
 * this under `alg`" (after a `kid`, the key's fit to `alg` and a certificate's dates).
 *
 * @example
 * const verifier: ClientSignatureVerifier = {
 *   secretTypes: ['JsonWebKey'],
 *   verify: (jws, alg, secrets) => (secrets.some((s) => verifyCompactJws(jws, alg, keyOf(s)))
 *     ? { success: true } : { success: false, reason: 'no key verified the signature' }),
 * };
 */
export interface ClientSignatureVerifier {
  /** The secret definition `type` values holding keys, e.g. `["JsonWebKey"]`. */
  readonly secretTypes: readonly string[];
  /** `secrets`: the client's unexpired secrets of `secretTypes`. */
  verify(jws: CompactJws, alg: JwsAlgorithm, secrets: readonly Secret[]): ClientSignatureResult | Promise<ClientSignatureResult>;
}

/** The token request as validated before a grant runs. */
export interface ValidatedTokenRequest {
  /** The authenticated client. */
  readonly client: Client;
  readonly grantType: string;
  /** Scopes granted if the grant succeeds: the requested ones, or all allowed when none were. */
  readonly requestedScopes: readonly string[];
  /** Whether `scope` was sent at all. */
  readonly scopeRequested: boolean;
  /**
   * The APIs the request named with `resource` (RFC 8707 §2), checked by the host (each known,
   * usable by the client) and given as their audience identifiers (`audienceOf`: the API's
   * `uri`, else its name), each once; empty when none was sent. Unless the grant sets
   * `GrantSuccess.audience`, the access token is for exactly these APIs, with only their scopes.
   */
  readonly resources: readonly string[];
  /** Every form parameter, custom ones included; credential parameters (see `ParameterDeclaration`) removed. */
  readonly raw: ReadonlyMap<string, string>;
  /** The caller's network address, when known (for rate limits); behind a proxy in `trustedProxies`, the client's forwarded one. */
  readonly remoteAddress?: string | undefined;
  /**
   * The request's DPoP proof (RFC 9449), already validated by the host: the issued tokens will be
   * bound to its key. A grant that accepts a bound access token checks it with `requireSenderBinding`.
   */
  readonly dpop?: DpopProofSummary | undefined;
  /**
   * The `x5t#S256` thumbprint of the TLS client certificate the request came with (mutual TLS,
   * RFC 8705), when it came with one: its own handshake or a trusted proxy's header. A grant that
   * accepts a certificate-bound access token checks it with `requireSenderBinding`.
   */
  readonly certificateThumbprint?: string | undefined;
}

/**
 * Who a token is about. A `user` signed in at `authTime` (epoch seconds): their tokens may carry
 * refresh and ID tokens. A `client` acts for itself (`id` is a client id): no user, so never a
 * refresh token or an ID token (RFC 9068 §2.2).
 */
export type GrantSubject =
  | {
      readonly kind: 'user'; readonly id: string; readonly authTime: number;
      /** How the user signed in (RFC 8176 `amr`, e.g. `["pwd", "otp", "mfa"]`) and the class it met (OIDC Core `acr`), when known. */
      readonly amr?: readonly string[] | undefined; readonly acr?: string | undefined;
      /** Issue 34: the upstream identity provider the user signed in at (its configured `name`), IdentityServer's `idp` claim. */
      readonly idp?: string | undefined;
    }
  | { readonly kind: 'client'; readonly id: string };

export interface GrantSuccess {
  readonly subject: GrantSubject;
  /** Scopes to grant instead of the requested ones (must be a subset of them). */
  readonly scopes?: readonly string[];
  /** Extra access token claims; registered claims (`iss`, `sub`, `aud`, `exp`, ...) cannot be overridden. */
  readonly claims?: Readonly<Record<string, JsonValue>>;
  /**
   * Limits the access token's `aud` to these API resources, by audience identifier or name
   * (RFC 8693 `audience`, RFC 8707 `resource`). It must hold every one of `request.resources`
   * (else `invalid_target`); left out, the token is for `request.resources` when sent, else for
   * every API of its scopes.
   */
  readonly audience?: readonly string[];
  /**
   * RFC 8707 §2.2: the APIs a refresh token issued with this success covers, when more than this
   * access token's `audience` (a code granted for two APIs redeemed for one). Default `audience`.
   */
  readonly grantedAudience?: readonly string[];
  /** Refresh token family to continue (refresh grant only). */
  readonly sessionId?: string;
  /**
   * The handle of a one-time grant in the store (e.g. a device code) that this success spends.
   * Leave it unconsumed: the host consumes it in the same transaction that stores the issued
   * tokens, so a store failure leaves it usable for a retry. When another request spent it
   * first, nothing is issued and the grant's `spent` answers instead. Its tokens form one family,
   * revoked together when the grant is redeemed again.
   */
  readonly consumes?: string;
  /** Members for the ID token that only the grant knows (OIDC Core §2, §3.1.3.6): the request's `nonce`, the session's `sid`. */
  readonly idToken?: { readonly nonce?: string | undefined; readonly sid?: string | undefined };
}

export interface GrantContext {
  readonly request: ValidatedTokenRequest;
  /**
   * Set this on success. It starts unset, and an unset result is answered `invalid_grant`: a
   * grant that forgets to decide denies. To refuse, throw an `OAuthError` whose code is one of
   * `tokenRequestErrorCodes` (e.g. `throw new InvalidGrant('The code has expired.')`); any other
   * code, and any other throw, is logged and answered `server_error`.
   */
  result: GrantSuccess | undefined;
  /** Extra members for the token response; standard members can never be overridden. */
  readonly customResponse: Record<string, JsonValue>;
}

/**
 * Handles one `grant_type` at the token endpoint (spec §2.4). The host has already
 * authenticated the client and checked that it may use this grant type and these scopes.
 *
 * @example
 * const grant: ExtensionGrantValidator = {
 *   grantType: 'urn:example:magic',
 *   parameters: [{ name: 'word', maxLength: 20 }],
 *   validate(ctx) {
 *     if (ctx.request.raw.get('word') !== 'please') throw new InvalidGrant('Say the magic word.');
 *     ctx.result = { subject: { kind: 'user', id: 'alice', authTime: Math.floor(Date.now() / 1000) } };
 *   },
 * };
 */
export interface ExtensionGrantValidator {
  readonly grantType: string;
  /** The form parameters this grant reads (their length caps). Undeclared ones are capped at 2048. */
  readonly parameters?: readonly ParameterDeclaration[];
  validate(context: GrantContext): void | Promise<void>;
  /**
   * For grants that answer with `consumes`: what the client hears when the one-time grant was
   * spent by another request between `validate` and the host storing the tokens (a race). It
   * may revoke what the first redemption issued, and returns the error to answer with. Without
   * it the answer is `invalid_grant`.
   */
  spent?(handle: string, request: ValidatedTokenRequest): Promise<OAuthError>;
  /**
   * For grants that answer with `consumes`: called once the host's commit has spent the one-time
   * grant and stored the tokens, and only for the request that won it. The place for what only
   * a winner may do, such as raising an event; a request that lost the race hears `spent`
   * instead. A throw is logged and changes nothing: the tokens are already given out.
   */
  redeemed?(success: GrantSuccess, request: ValidatedTokenRequest): void | Promise<void>;
  /**
   * Judges a client allowed this grant, wherever the client comes from: the config file at
   * start-up, the database (`svc clients`, dynamic registration) or a client-store plugin, each
   * time it is written or loaded. A problem refuses the client (start-up stops, the write is
   * refused, a stored client is left out), naming the field. For what the grant needs of every
   * client that may use it, e.g. delegation's "list the APIs you front".
   *
   * @example checkClient: (client) => allowedSubjectTokenAudiences.read(client).length > 0 ? undefined
   *   : { field: 'allowedSubjectTokenAudiences', message: 'list the APIs the client fronts, e.g. ["api1"]' }
   */
  checkClient?(client: Client): ClientProblem | undefined;
}

/** What `checkClient` finds wrong with a client: the field (relative to the client) and why. */
export interface ClientProblem {
  readonly field: string;
  readonly message: string;
}

/** Claims of a validated access token. */
export interface AccessTokenClaims {
  readonly iss: string;
  readonly sub: string;
  readonly client_id: string;
  readonly scope: string;
  readonly aud: string | string[];
  readonly exp: number;
  readonly iat: number;
  readonly nbf?: number;
  readonly jti: string;
  readonly auth_time?: number;
  /** Issue 35: the class and methods of the user's sign-in (OIDC Core §2, RFC 8176), when known. */
  readonly acr?: string;
  readonly amr?: string[];
  readonly act?: JsonValue;
  readonly [claim: string]: JsonValue | undefined;
}

export type AccessTokenValidation =
  | { readonly active: true; readonly claims: AccessTokenClaims; readonly format: 'jwt' | 'reference' }
  | { readonly active: false; readonly reason: string };

/** The service's own access token validator: JWT and reference tokens alike. */
export interface TokenValidator {
  validateAccessToken(token: string): Promise<AccessTokenValidation>;
}

/** A user, as the resource owner validator knows them. Config `users` are resource owners too. */
export interface ResourceOwner {
  /** The `sub` of the user's tokens. */
  readonly subjectId: string;
  readonly username: string;
  /** What identity resources release into ID tokens, e.g. `{ name: 'Alice Smith' }`. */
  readonly claims?: Readonly<Record<string, string | number | boolean>>;
}

/**
 * Checks a resource owner's username and password (the password grant, the device page) and
 * finds users by subject (ID token claims). The default reads the config's `users`; a plugin's
 * `resourceOwnerValidator` replaces it with the deployment's own user store.
 *
 * @example
 * const directory: ResourceOwnerValidator = {
 *   async validate(username, password) {
 *     const row = await db.checkPassword(username, password); // constant time, same cost for unknown users
 *     return row ? { subjectId: row.id, username, claims: { name: row.displayName } } : undefined;
 *   },
 *   async findBySubject(subjectId) {
 *     const row = await db.userById(subjectId);
 *     return row ? { subjectId, username: row.login, claims: { name: row.displayName } } : undefined;
 *   },
 * };
 */
export interface ResourceOwnerValidator {
  validate(username: string, password: string): Promise<ResourceOwner | undefined>;
  findBySubject(subjectId: string): Promise<ResourceOwner | undefined>;
}

export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
}

/** The logger plugins receive (pino's interface, narrowed). Never log secrets or tokens. */
export interface Logger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  child(bindings: Record<string, unknown>): Logger;
}

/** The service's public addresses, derived from the issuer. */
export interface EndpointUrls {
  readonly issuer: string;
  readonly token: string;
  readonly introspection: string;
  readonly revocation: string;
  readonly deviceAuthorization: string;
  readonly jwks: string;
  /** Endpoint name as in `CredentialSource.endpoint` to its URL. */
  readonly byEndpoint: Readonly<Record<string, string>>;
}

/** The parts of the resolved configuration a plugin may read (frozen). */
export interface PluginConfig {
  readonly issuer: string;
  readonly clients: readonly Client[];
  readonly apiScopes: readonly ApiScope[];
  readonly apiResources: readonly ApiResource[];
  readonly identityResources: readonly IdentityResource[];
}

/** A record a plugin keeps in the store, e.g. a used assertion id (epoch milliseconds throughout). */
export interface PluginRecord {
  /** The plugin's own key; the store keeps only its hash (and the time of a `timeOrderedKey`, in front of it). */
  readonly key: string;
  /** The plugin's name for its kind of record, e.g. `"assertion_jti"`. */
  readonly type: string;
  readonly clientId: string;
  readonly subjectId: string | undefined;
  readonly sessionId: string | undefined;
  readonly createdAt: number;
  readonly expiresAt: number;
  readonly consumedAt: number | undefined;
  /** JSON text owned by the plugin. */
  readonly data: string;
}

/**
 * The plugin's own records, and nothing else: keys live in a namespace of the plugin's, so a
 * plugin can neither read nor remove the service's tokens, keys or another plugin's records.
 */
export interface PluginStore {
  /** Rejects with `DuplicateKeyError` (test with `isDuplicateKeyError`) when a live record holds the key. */
  add(record: PluginRecord): Promise<void>;
  get(key: string): Promise<PluginRecord | undefined>;
  /** Marks the record consumed if it is unconsumed and unexpired at `now`; only the one winning caller gets it back. */
  consume(key: string, now: number): Promise<PluginRecord | undefined>;
  remove(key: string): Promise<void>;
}

/**
 * What a plugin factory receives: built once at start-up, frozen, the same for every factory of
 * the plugin. Nothing else of the service is reachable from a plugin.
 */
export interface PluginDependencies<Options = Readonly<Record<string, unknown>>> {
  readonly config: PluginConfig;
  readonly urls: EndpointUrls;
  /** This plugin's options, as its `options` parser returned them (the raw slice when it declares none). */
  readonly options: Options;
  /** This plugin's raw slice of `config.plugins`, `{}` when absent. */
  readonly pluginOptions: Readonly<Record<string, unknown>>;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly store: PluginStore;
  readonly tokenValidator: TokenValidator;
  readonly resourceOwnerValidator: ResourceOwnerValidator;
}

/** What the sign-in page shows (the authorization endpoint's sign-in step); `SignInPage.render` turns it into HTML. */
export interface SignInPageView {
  /** The language the host chose for the page (BCP 47, from `ui_locales` or `Accept-Language`); `message` is in it. */
  readonly lang: string;
  /** Where the form POSTs. */
  readonly action: string;
  /** Hidden inputs the form must send back unchanged: the pending request and its CSRF token. */
  readonly hiddenFields: ReadonlyArray<readonly [string, string]>;
  readonly clientId: string;
  readonly clientName: string;
  /** Prefill for the username: `login_hint`, or what was typed before. */
  readonly username?: string | undefined;
  /** A plain message to show, e.g. a wrong password. */
  readonly message?: string | undefined;
}

/**
 * Who signed in, or the message to show on the page again. `amr` (issue 35): how, as RFC 8176
 * method values, e.g. `["pwd", "otp", "mfa"]` for a page that checked a code of its own; the ID
 * token's `amr` and `acr` come from it (`mfa` meets a client's `requireMfa`). Without it the
 * sign-in says nothing of how, and a user with the service's one-time codes is asked for one.
 */
export type SignInResult = { readonly subject: string; readonly amr?: readonly string[] } | { readonly message: string };

/** What the consent page shows; `SignInPage.renderConsent` turns it into HTML. */
export interface ConsentPageView {
  /** The language the host chose for the page (BCP 47). */
  readonly lang: string;
  /** Where the form POSTs, with `decision=approve` or `decision=deny` and the hidden fields. */
  readonly action: string;
  /** Hidden inputs the form must send back unchanged: the pending request and its CSRF token. */
  readonly hiddenFields: ReadonlyArray<readonly [string, string]>;
  readonly clientId: string;
  readonly clientName: string;
  /** What the client asks for: each scope with the configured description, else the host's words for a standard scope. */
  readonly scopes: ReadonlyArray<{ readonly name: string; readonly description: string | undefined }>;
  /** Who is signed in. */
  readonly username: string;
  /** The client registered itself (RFC 7591 §5): say that the operator has not verified it. */
  readonly unverified: boolean;
  /** Where the browser goes next (a host, or a native app's scheme) for a self-registered or native public client: show it prominently. */
  readonly returnTo: string | undefined;
}

/** What the logout confirmation page shows; `SignInPage.renderLogout` turns it into HTML. */
export interface LogoutPageView {
  readonly lang: string;
  /** Where the form POSTs, with `decision=approve` (sign out) or `decision=deny` (stay signed in) and the hidden fields. */
  readonly action: string;
  /** Hidden inputs the form must send back unchanged: the CSRF token and the logout request's parameters. */
  readonly hiddenFields: ReadonlyArray<readonly [string, string]>;
}

/**
 * Issue 35: the second step of a sign-in, for a user of the service's database with one-time
 * codes; `SignInPage.renderSecondFactor` turns it into HTML. The host checks the code.
 */
export interface SecondFactorPageView {
  readonly lang: string;
  /** Where the form POSTs, with the code (a one-time code or a recovery code) in a field named `code`. */
  readonly action: string;
  /** Hidden inputs the form must send back unchanged: the pending request and its CSRF token. */
  readonly hiddenFields: ReadonlyArray<readonly [string, string]>;
  readonly clientId: string;
  readonly clientName: string;
  /** A plain message to show, e.g. a wrong code, in `lang`. */
  readonly message?: string | undefined;
}

/** Where to send a person for an external sign-in, and what must come back. */
export interface ExternalSignInRequest {
  /**
   * Opaque, bound to this browser and this pending request: pass it through the identity
   * provider (as its OAuth `state`, say) and return it from `callback` unchanged.
   */
  readonly state: string;
  /** The plugin's callback route (`<issuer>/connect/authorize/callback`): where the identity provider sends the browser back. */
  readonly callbackUrl: string;
  readonly clientId: string;
  readonly clientName: string;
  /** The authorization request's `login_hint` and `ui_locales`, to pass on if the provider takes them. */
  readonly loginHint?: string | undefined;
  readonly uiLocales?: string | undefined;
  /**
   * The `name` of one of `ExternalSignIn.providers` the person chose: a button on the sign-in
   * page, or the request's `acr_values=idp:<name>`. Absent when the sign-in has no providers.
   */
  readonly provider?: string | undefined;
}

/** The identity provider's answer as the plugin reads it: the `state` it was given, and who signed in or why not. */
export type ExternalSignInResult =
  | {
      readonly state: string; readonly subject: string;
      /**
       * Issue 34: how the person signed in there (RFC 8176 method names, at most ten); the
       * tokens' `amr` is `["external", ...these]`. They count for our `acr` (an `"mfa"` here is a
       * second factor): return only what the provider is trusted to say.
       */
      readonly amr?: readonly string[];
      /** Issue 34: the provider's name, the tokens' `idp` claim (`[\w.:-]`, at most 64 characters). */
      readonly idp?: string;
      /**
       * Issue 34: what `endSession` needs to sign the person out at the provider later (e.g. its
       * ID token), kept in our sign-in session and handed back when it ends; at most 8192 characters.
       */
      readonly logoutHint?: string;
    }
  | {
      readonly state: string;
      readonly message: string;
      /**
       * The display name of the provider that failed. With it (and `providers`) the host shows
       * the sign-in page again, naming the provider, instead of ending the interaction.
       */
      readonly provider?: string;
      /** Why, for the page's text in the reader's language (else `message` is shown as given). */
      readonly reason?: ExternalSignInFailure;
    };

/** Why an external sign-in failed, as the sign-in page words it. */
export type ExternalSignInFailure = 'cancelled' | 'refused' | 'unavailable' | 'invalid-answer' | 'not-allowed';

/**
 * Signs people in at an external identity provider (an upstream OpenID provider, a SAML bridge,
 * a corporate portal) instead of a form: the host redirects the browser to `start`'s URL, and
 * the provider sends it back to the callback route, which the host hands to `callback`. The
 * host checks that the `state` belongs to this browser and its pending request before it
 * signs anyone in, then goes on as after any sign-in (session, consent, code).
 */
export interface ExternalSignIn {
  /**
   * Several identity providers to choose from: the host then shows the sign-in page with a
   * button per provider (its `displayName`) and passes the choice to `start` as `provider`; a
   * request's `acr_values=idp:<name>`, or a `login_hint` at one of a provider's `domains`, skips
   * the page. Without it the host redirects at once.
   */
  readonly providers?: ReadonlyArray<{
    readonly name: string;
    readonly displayName: string;
    /**
     * The origin `start` sends the browser to for this provider. The button is a form, and a
     * browser holds the redirect after a form's POST to the page's CSP `form-action`: without
     * it the browser refuses to go there. Read at every render, so it may be set late.
     */
    readonly formAction?: string | undefined;
    /**
     * Issue 34: a request whose `login_hint` is an address at one of these domains (lower case,
     * matched exactly) goes straight to this provider. `acr_values=idp:<name>` wins over it.
     */
    readonly domains?: readonly string[] | undefined;
  }>;
  /** With `providers`: show the username and password form too. Default true. */
  readonly passwordForm?: boolean;
  /** The absolute `https:` (or `http:`) URL to send the browser to. */
  start(request: ExternalSignInRequest): string | Promise<string>;
  /**
   * Reads the provider's answer at `GET/POST <issuer>/connect/authorize/callback` (query or
   * form parameters) and says who signed in. Verify the provider's answer here (exchange its
   * code, check its ID token); the host only trusts the `subject` you return.
   */
  callback(params: ReadonlyMap<string, string>, context: { readonly remoteAddress?: string | undefined }): Promise<ExternalSignInResult>;
  /**
   * Issue 34: our session of a person who signed in with a `logoutHint` ended at
   * `/connect/endsession`. Answer the provider's logout URL to send the browser to (it must come
   * back to `postLogoutRedirectUri` with `state`), or `undefined` to sign out here only.
   */
  endSession?(logoutHint: string, back: { readonly postLogoutRedirectUri: string; readonly state: string }): Promise<string | undefined>;
}

/**
 * Replaces the pages of the authorization endpoint's interaction (its own look, a second
 * factor, an external identity provider, ...), like node-oidc-provider's interactions and
 * Hydra's login and consent apps. Give any of the members; what you leave out stays built in.
 * The host keeps the flow: the pending request, CSRF, the throttle (by the form's `username`),
 * the session, consent decisions and the code. At most one plugin may provide it.
 *
 * @example
 * const page: SignInPage = {
 *   render: (view) => `<form method="post" action="${view.action}">...${hidden(view.hiddenFields)}
 *     <input name="username"><input name="password" type="password"><input name="otp"></form>`,
 *   async authenticate(form) {
 *     const user = await users.validate(form.get('username') ?? '', form.get('password') ?? '');
 *     return user && totp.check(user, form.get('otp')) ? { subject: user.subjectId } : { message: 'Sign-in failed.' };
 *   },
 *   renderConsent: (view) => `...<button name="decision" value="approve">...`,
 * };
 */
export interface SignInPage {
  /** The whole sign-in document; escape every value you put in it. */
  render?(view: SignInPageView): string;
  /** Judges the POSTed sign-in form. Default: `username` and `password` against the resource owner validator. */
  authenticate?(form: ReadonlyMap<string, string>, context: { readonly remoteAddress?: string | undefined }): Promise<SignInResult>;
  /** The whole consent document. */
  renderConsent?(view: ConsentPageView): string;
  /** The whole logout confirmation document (`/connect/endsession` without a valid `id_token_hint`). */
  renderLogout?(view: LogoutPageView): string;
  /** Issue 35: the whole document of the second step (a one-time code or a recovery code, field `code`). */
  renderSecondFactor?(view: SecondFactorPageView): string;
  /** Sign-in at an external identity provider instead of a form (then `render` and `authenticate` are not used). */
  readonly externalSignIn?: ExternalSignIn;
  /** Extra CSP `style-src` sources for the plugin's pages, e.g. `"https://cdn.example.com"`; scripts are never allowed. */
  readonly styleSrc?: string;
}

/**
 * What a client store holds now: entries in the shape of `svc.config.ts`'s `clients` and
 * `apiResources` (shared secrets as stored hashes), each optionally with `disabled: true`. The
 * host checks them with the config's own rules; an entry it refuses is named in the log.
 */
export interface ClientStoreSnapshot {
  readonly clients: readonly unknown[];
  readonly apiResources: readonly unknown[];
}

/**
 * A source of clients and API resources besides the config file (IdentityServer's client and
 * resource stores): a directory service, an HTTP registry, a file watched for changes. The host
 * loads it at start-up, keeps what it returned in memory for the request path, and asks
 * `version` every `clientStores.refreshInterval` seconds, reloading when the answer changed. A
 * client id that two stores define stops start-up, or later is refused with a log line.
 *
 * @example
 * const fromFile: ClientStore = {
 *   name: 'clients-file',
 *   load: async () => JSON.parse(await readFile(path, 'utf8')),
 *   version: async () => (await stat(path)).mtimeMs,
 * };
 */
export interface ClientStore {
  /** Names the store in log lines and start-up errors. */
  readonly name: string;
  load(): Promise<ClientStoreSnapshot>;
  /** A cheap value that changes whenever `load` would answer differently. Without it the store is loaded once. */
  version?(): Promise<string | number>;
  /** Told that a client or API resource authenticated, at most once a minute per id, e.g. to keep a last-used date. */
  used?(kind: 'client' | 'apiResource', id: string, at: number): Promise<void>;
}

/** A factory is called once at start-up with the service's parts; do expensive work here. */
export type Factory<T, Options = Readonly<Record<string, unknown>>> = (deps: PluginDependencies<Options>) => T | Promise<T>;

/**
 * Reads a plugin's raw options slice once at start-up. Throw an `OptionsError` naming the field
 * (`new OptionsError('clockSkew', 'expected a non-negative number, found -1')`): start-up stops
 * with `plugins.<name>.<field>: ...`.
 */
export type OptionsParser<Options> = (raw: Readonly<Record<string, unknown>>) => Options;

/** What a plugin folder's `index` default-exports. */
export interface Plugin<Options = Readonly<Record<string, unknown>>> {
  /** Must equal the folder's name. */
  readonly name: string;
  /** Parses `config.plugins[name]` once; every factory then gets the result as `deps.options`. */
  readonly options?: OptionsParser<Options>;
  /**
   * The client fields the plugin reads (`defineClientField`): written on a client like the
   * service's own fields, checked by the plugin wherever the client comes from.
   */
  readonly clientFields?: ReadonlyArray<ClientField<unknown>>;
  readonly secretParsers?: ReadonlyArray<Factory<SecretParser, Options>>;
  readonly secretValidators?: ReadonlyArray<Factory<SecretValidator, Options>>;
  readonly extensionGrants?: ReadonlyArray<Factory<ExtensionGrantValidator, Options>>;
  /** Receivers of the service's events (token issued, authentication failed, ...). */
  readonly eventSinks?: ReadonlyArray<Factory<EventSink, Options>>;
  /**
   * The deployment's own user store, in place of the config's `users`: the password grant, the
   * device page's sign-in and ID token claims all ask it. At most one plugin may provide it.
   */
  readonly resourceOwnerValidator?: Factory<ResourceOwnerValidator, Options>;
  /** The deployment's own sign-in, consent and logout pages, or an external identity provider. At most one plugin may provide it. */
  readonly signInPage?: Factory<SignInPage, Options>;
  /** Sources of clients and API resources besides the config file and the database. */
  readonly clientStores?: ReadonlyArray<Factory<ClientStore, Options>>;
  /** Verifiers of what clients sign with their registered keys (signed request objects, RFC 9101). */
  readonly clientSignatureVerifiers?: ReadonlyArray<Factory<ClientSignatureVerifier, Options>>;
}
