/**
 * The contracts a plugin implements. First-party plugins (`plugins/shared-secret`,
 * `plugins/private-key-jwt`, `plugins/delegation`) use exactly these, nothing more.
 */
import type { OAuthErrorCode } from '../oauth/errors.js';
import type { ApiResource, Client, ResolvedConfig, Secret } from '../config/schema.js';
import type { Store } from '../store/store.js';
import type { EventSink } from '../events/service-event.js';

/** A JSON value, for claims and custom response parameters. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

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
}

/** Credentials a parser found. */
export interface ParsedSecret {
  /** The client id (or API resource name) the credentials claim. */
  readonly id: string;
  /** The credential itself: a plain shared secret, a JWT assertion, ... Never logged. */
  readonly credential: string;
  /** What kind of credential this is; selects validators, e.g. `"SharedSecret"`. */
  readonly type: string;
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

/**
 * The form of a client assertion's `aud` (RFC 7523 §3, RFC 10070): the issuer identifier, the
 * token endpoint URL, or anything else (another endpoint's URL, several values, a stranger's URL).
 */
export type AssertionAudienceForm = 'issuer' | 'token_endpoint' | 'other';

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

/** The token request as validated before a grant runs. */
export interface ValidatedTokenRequest {
  /** The authenticated client. */
  readonly client: Client;
  readonly grantType: string;
  /** Scopes granted if the grant succeeds: the requested ones, or all allowed when none were. */
  readonly requestedScopes: readonly string[];
  /** Whether `scope` was sent at all. */
  readonly scopeRequested: boolean;
  /** Every form parameter, custom ones included (client credentials removed). */
  readonly raw: ReadonlyMap<string, string>;
  /** The caller's network address, when known (for rate limits); behind a proxy in `trustedProxies`, the client's forwarded one. */
  readonly remoteAddress?: string | undefined;
}

/** The error codes a grant may answer with (RFC 6749 §5.2 and the device flow's). */
export type TokenRequestErrorCode = Extract<
  OAuthErrorCode,
  | 'invalid_request'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'invalid_scope'
  | 'invalid_target'
  | 'authorization_pending'
  | 'slow_down'
  | 'access_denied'
  | 'expired_token'
>;

export interface GrantError {
  readonly error: TokenRequestErrorCode;
  readonly description?: string;
}

export interface GrantSuccess {
  /** The subject of the issued token: a user's `subjectId`, or the client's id for client-only grants. */
  readonly subject: string;
  readonly grantType: string;
  /** When the user authenticated (epoch seconds); absent for tokens that represent no user. */
  readonly authTime?: number;
  /** Scopes to grant instead of the requested ones (must be a subset of them). */
  readonly scopes?: readonly string[];
  /** Extra access token claims; registered claims (`iss`, `sub`, `aud`, `exp`, ...) cannot be overridden. */
  readonly claims?: Readonly<Record<string, JsonValue>>;
  /** Limits the access token's `aud` to these API resource names (RFC 8693 `audience`). */
  readonly audience?: readonly string[];
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

export type GrantResult = GrantError | GrantSuccess;

export function isGrantError(result: GrantResult): result is GrantError {
  return 'error' in result;
}

export interface GrantContext {
  readonly request: ValidatedTokenRequest;
  /**
   * Set this. It starts unset, and an unset result is answered `invalid_grant`: a grant that
   * forgets to decide denies.
   */
  result: GrantResult | undefined;
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
 *   validate(ctx) {
 *     const word = ctx.request.raw.get('word');
 *     ctx.result = word === 'please' ? { subject: 'alice', grantType: this.grantType } : { error: 'invalid_grant' };
 *   },
 * };
 */
export interface ExtensionGrantValidator {
  readonly grantType: string;
  validate(context: GrantContext): void | Promise<void>;
  /**
   * For grants that answer with `consumes`: what the client hears when the one-time grant was
   * spent by another request between `validate` and the host storing the tokens (a race). It
   * may revoke what the first redemption issued. Without it the answer is `invalid_grant`.
   */
  spent?(handle: string, request: ValidatedTokenRequest): Promise<GrantError>;
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

/** What a plugin factory may ask for by name. */
export interface PluginDependencies {
  readonly config: ResolvedConfig;
  readonly urls: EndpointUrls;
  /** This plugin's slice of `config.plugins`, `{}` when absent. */
  readonly pluginOptions: Readonly<Record<string, unknown>>;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly store: Store;
  readonly tokenValidator: TokenValidator;
  readonly resourceOwnerValidator: ResourceOwnerValidator;
}

/** What the sign-in page shows (the authorization endpoint's sign-in step); `SignInPage.render` turns it into HTML. */
export interface SignInPageView {
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

/** Who signed in, or the message to show on the page again. */
export type SignInResult = { readonly subject: string } | { readonly message: string };

/**
 * Replaces the built-in sign-in page of the authorization endpoint (its own look, a second
 * factor, ...), like node-oidc-provider's interactions. The host keeps the flow: the pending
 * request, CSRF, the throttle (by the form's `username`), the session, consent and the code.
 * At most one plugin may provide it.
 *
 * @example
 * const page: SignInPage = {
 *   render: (view) => `<form method="post" action="${view.action}">...${hidden(view.hiddenFields)}
 *     <input name="username"><input name="password" type="password"><input name="otp"></form>`,
 *   async authenticate(form) {
 *     const user = await users.validate(form.get('username') ?? '', form.get('password') ?? '');
 *     return user && totp.check(user, form.get('otp')) ? { subject: user.subjectId } : { message: 'Sign-in failed.' };
 *   },
 * };
 */
export interface SignInPage {
  /** The whole HTML document; escape every value you put in it. */
  render(view: SignInPageView): string;
  /** Judges the POSTed form. Default: `username` and `password` against the resource owner validator. */
  authenticate?(form: ReadonlyMap<string, string>, context: { readonly remoteAddress?: string | undefined }): Promise<SignInResult>;
  /** Extra CSP `style-src` sources for the page, e.g. `"https://cdn.example.com"`; scripts are never allowed. */
  readonly styleSrc?: string;
}

/** A factory is called once at start-up with the service's parts; do expensive work here. */
export type Factory<T> = (deps: PluginDependencies) => T | Promise<T>;

/** What a plugin folder's `index` default-exports. */
export interface Plugin {
  /** Must equal the folder's name. */
  readonly name: string;
  readonly secretParsers?: ReadonlyArray<Factory<SecretParser>>;
  readonly secretValidators?: ReadonlyArray<Factory<SecretValidator>>;
  readonly extensionGrants?: ReadonlyArray<Factory<ExtensionGrantValidator>>;
  /** Receivers of the service's events (token issued, authentication failed, ...). */
  readonly eventSinks?: ReadonlyArray<Factory<EventSink>>;
  /**
   * The deployment's own user store, in place of the config's `users`: the password grant, the
   * device page's sign-in and ID token claims all ask it. At most one plugin may provide it.
   */
  readonly resourceOwnerValidator?: Factory<ResourceOwnerValidator>;
  /** The deployment's own sign-in page for the authorization endpoint. At most one plugin may provide it. */
  readonly signInPage?: Factory<SignInPage>;
}
