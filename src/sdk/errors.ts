/**
 * OAuth errors as values. Each instance knows its wire code (RFC 6749 §5.2, RFC 8628 §3.5,
 * RFC 7009 §2.2.1), its HTTP status, a description that is safe to show the caller and a
 * separate detail that only reaches the log. One middleware turns them into responses.
 */

export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'invalid_target'
  | 'unsupported_token_type'
  | 'authorization_pending'
  | 'slow_down'
  | 'access_denied'
  | 'expired_token'
  | 'temporarily_unavailable'
  | 'server_error'
  // Authorization endpoint (RFC 6749 §4.1.2.1, OIDC Core §3.1.2.6, RFC 9126 §2.3) and UserInfo (RFC 6750 §3.1).
  | 'unsupported_response_type'
  | 'login_required'
  | 'consent_required'
  | 'interaction_required'
  // OpenID Connect Core Unmet Authentication Requirements 1.0 §3: an essential `acr` not met (issue 35).
  | 'unmet_authentication_requirements'
  | 'invalid_request_uri'
  | 'request_not_supported'
  // Signed request objects (RFC 9101 §6.3, OIDC Core §3.1.2.6).
  | 'invalid_request_object'
  | 'request_uri_not_supported'
  | 'invalid_token'
  | 'insufficient_scope'
  // RFC 9470 §3: the token's sign-in does not meet what the resource demands (UserInfo, issue 35).
  | 'insufficient_user_authentication'
  // DPoP (RFC 9449 §5, §7.1, §8).
  | 'invalid_dpop_proof'
  | 'use_dpop_nonce'
  // Dynamic client registration (RFC 7591 §3.2.2).
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata'
  | 'invalid_software_statement'
  | 'unapproved_software_statement';

/**
 * The codes a grant may refuse a token request with (RFC 6749 §5.2, RFC 8707 §2, RFC 8628 §3.5,
 * and `temporarily_unavailable` for a rate limit): the one list the grant runner checks against.
 */
export const tokenRequestErrorCodes = [
  'invalid_request', 'invalid_grant', 'unauthorized_client', 'invalid_scope', 'invalid_target',
  'authorization_pending', 'slow_down', 'access_denied', 'expired_token', 'temporarily_unavailable',
  'invalid_dpop_proof',
] as const satisfies readonly OAuthErrorCode[];

export type TokenRequestErrorCode = (typeof tokenRequestErrorCodes)[number];

export interface OAuthErrorOptions {
  /** HTTP status; defaults to the code's usual status. */
  status?: number;
  /** What went wrong, for the log only: never sent to the caller. */
  logDetail?: string;
  /** Extra response headers, e.g. `WWW-Authenticate` or `Retry-After`. */
  headers?: Record<string, string>;
  cause?: unknown;
}

const defaultStatus: Record<OAuthErrorCode, number> = {
  invalid_request: 400,
  invalid_client: 401,
  invalid_grant: 400,
  unauthorized_client: 400,
  unsupported_grant_type: 400,
  invalid_scope: 400,
  invalid_target: 400,
  unsupported_token_type: 400,
  authorization_pending: 400,
  slow_down: 400,
  access_denied: 400,
  expired_token: 400,
  temporarily_unavailable: 503,
  server_error: 500,
  unsupported_response_type: 400,
  login_required: 400,
  consent_required: 400,
  interaction_required: 400,
  unmet_authentication_requirements: 400,
  invalid_request_uri: 400,
  request_not_supported: 400,
  invalid_request_object: 400,
  request_uri_not_supported: 400,
  invalid_token: 401,
  insufficient_scope: 403,
  insufficient_user_authentication: 401,
  invalid_dpop_proof: 400,
  use_dpop_nonce: 400,
  invalid_redirect_uri: 400,
  invalid_client_metadata: 400,
  invalid_software_statement: 400,
  unapproved_software_statement: 400,
};

/** RFC 6749 §5.2: `error_description` = *( %x20-21 / %x23-5B / %x5D-7E ). */
const descriptionChars = /^[\x20\x21\x23-\x5B\x5D-\x7E]*$/;
const outsideDescriptionChars = /[^\x20\x21\x23-\x5B\x5D-\x7E]/g;
const maxDescriptionLength = 500;

/**
 * A description fit for the wire, whoever wrote it: quotes become `'`, backslashes `/`, anything
 * else outside RFC 6749 §5.2's set `?`, and it is cut at 500 characters. A description is ours
 * to write and never echoes the request (docs/reference/endpoints.md); this is the guarantee that holds even
 * for a plugin that forgets.
 */
export function safeDescription(text: string): string {
  if (text.length <= maxDescriptionLength && descriptionChars.test(text)) return text;
  return text.slice(0, maxDescriptionLength).replaceAll('"', "'").replaceAll('\\', '/').replace(outsideDescriptionChars, '?');
}

/**
 * Marks OAuth errors across module instances: a plugin loaded through jiti may see its own copy
 * of this file, so `instanceof` alone would miss the errors it throws.
 */
const brand = Symbol.for('svc.OAuthError');

export class OAuthError extends Error {
  readonly [brand] = true;
  override readonly name: string = 'OAuthError';
  readonly code: OAuthErrorCode;
  readonly status: number;
  /** Client-safe description (the `error_description` member). */
  readonly description: string;
  readonly logDetail: string | undefined;
  readonly headers: Readonly<Record<string, string>>;

  constructor(code: OAuthErrorCode, description: string, options: OAuthErrorOptions = {}) {
    // An OAuth error is an answer, not a fault: refused requests (a device polling, a flood of
    // bad credentials) throw one each, and capturing a stack trace would cost more than the rest
    // of the refusal. Nothing reads it; an unexpected error keeps its own stack as `cause`.
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    const safe = safeDescription(description);
    super(safe, options.cause === undefined ? undefined : { cause: options.cause });
    Error.stackTraceLimit = stackTraceLimit;
    this.code = code;
    this.status = options.status ?? defaultStatus[code];
    this.description = safe;
    this.logDetail = options.logDetail;
    this.headers = options.headers ?? {};
  }

  /** The response body, RFC 6749 §5.2. */
  toJSON(): { error: OAuthErrorCode; error_description: string } {
    return { error: this.code, error_description: this.description };
  }
}

/* One class per code, so `instanceof InvalidGrant` and `catch (e: InvalidGrant)` read like the wire. */

export class InvalidRequest extends OAuthError {
  override readonly name = 'InvalidRequest';
  constructor(description = 'The request is malformed.', options?: OAuthErrorOptions) {
    super('invalid_request', description, options);
  }
}

export class InvalidClient extends OAuthError {
  override readonly name = 'InvalidClient';
  constructor(description = 'Client authentication failed.', options?: OAuthErrorOptions) {
    super('invalid_client', description, options);
  }
}

export class InvalidGrant extends OAuthError {
  override readonly name = 'InvalidGrant';
  constructor(description = 'The grant is invalid.', options?: OAuthErrorOptions) {
    super('invalid_grant', description, options);
  }
}

export class UnauthorizedClient extends OAuthError {
  override readonly name = 'UnauthorizedClient';
  constructor(description = 'The client is not allowed to use this grant type.', options?: OAuthErrorOptions) {
    super('unauthorized_client', description, options);
  }
}

export class UnsupportedGrantType extends OAuthError {
  override readonly name = 'UnsupportedGrantType';
  constructor(description = 'The grant type is not supported.', options?: OAuthErrorOptions) {
    super('unsupported_grant_type', description, options);
  }
}

export class InvalidScope extends OAuthError {
  override readonly name = 'InvalidScope';
  constructor(description = 'The requested scope is invalid.', options?: OAuthErrorOptions) {
    super('invalid_scope', description, options);
  }
}

/** RFC 7591 §3.2.2: a `redirect_uris` value the registration policy does not allow. */
export class InvalidRedirectUri extends OAuthError {
  override readonly name = 'InvalidRedirectUri';
  constructor(description = 'A redirect URI is not allowed.', options?: OAuthErrorOptions) {
    super('invalid_redirect_uri', description, options);
  }
}

/** RFC 7591 §3.2.2: a client metadata value that is invalid or not allowed. */
export class InvalidClientMetadata extends OAuthError {
  override readonly name = 'InvalidClientMetadata';
  constructor(description = 'The client metadata is invalid.', options?: OAuthErrorOptions) {
    super('invalid_client_metadata', description, options);
  }
}

/** RFC 7591 §3.2.2: a software statement that is not a valid JWT. */
export class InvalidSoftwareStatement extends OAuthError {
  override readonly name = 'InvalidSoftwareStatement';
  constructor(description = 'The software statement is invalid.', options?: OAuthErrorOptions) {
    super('invalid_software_statement', description, options);
  }
}

/** RFC 7591 §3.2.2: a software statement the server does not accept. */
export class UnapprovedSoftwareStatement extends OAuthError {
  override readonly name = 'UnapprovedSoftwareStatement';
  constructor(description = 'The software statement is not approved.', options?: OAuthErrorOptions) {
    super('unapproved_software_statement', description, options);
  }
}

export class InvalidTarget extends OAuthError {
  override readonly name = 'InvalidTarget';
  constructor(description = 'The requested resource is invalid.', options?: OAuthErrorOptions) {
    super('invalid_target', description, options);
  }
}

export class UnsupportedTokenType extends OAuthError {
  override readonly name = 'UnsupportedTokenType';
  constructor(description = 'This token type cannot be handled.', options?: OAuthErrorOptions) {
    super('unsupported_token_type', description, options);
  }
}

export class AuthorizationPending extends OAuthError {
  override readonly name = 'AuthorizationPending';
  constructor(description = 'The user has not yet approved the request.', options?: OAuthErrorOptions) {
    super('authorization_pending', description, options);
  }
}

export class SlowDown extends OAuthError {
  override readonly name = 'SlowDown';
  constructor(description = 'Polling too fast; slow down.', options?: OAuthErrorOptions) {
    super('slow_down', description, options);
  }
}

/** RFC 9101 §6.3: the request object failed a check (its signature, `iss`, `aud`, lifetime, `jti`). */
export class InvalidRequestObject extends OAuthError {
  override readonly name = 'InvalidRequestObject';
  constructor(description = 'The request object is invalid.', options?: OAuthErrorOptions) {
    super('invalid_request_object', description, options);
  }
}

export class AccessDenied extends OAuthError {
  override readonly name = 'AccessDenied';
  constructor(description = 'The request was denied.', options?: OAuthErrorOptions) {
    super('access_denied', description, options);
  }
}

export class ExpiredToken extends OAuthError {
  override readonly name = 'ExpiredToken';
  constructor(description = 'The code has expired.', options?: OAuthErrorOptions) {
    super('expired_token', description, options);
  }
}

export class TemporarilyUnavailable extends OAuthError {
  override readonly name = 'TemporarilyUnavailable';
  constructor(description = 'The service is temporarily unavailable; try again later.', options?: OAuthErrorOptions) {
    super('temporarily_unavailable', description, options);
  }
}

export class ServerError extends OAuthError {
  override readonly name = 'ServerError';
  constructor(description = 'An unexpected error occurred.', options?: OAuthErrorOptions) {
    super('server_error', description, options);
  }
}

/** RFC 9449 §5 (400 at the token endpoint) and §7.1 (401 with a `DPoP` challenge at a resource). */
export class InvalidDpopProof extends OAuthError {
  override readonly name = 'InvalidDpopProof';
  constructor(description = 'The DPoP proof is invalid.', options?: OAuthErrorOptions) {
    super('invalid_dpop_proof', description, options);
  }
}

/** RFC 9449 §8 and §9: the proof must carry the server's nonce, sent in the `DPoP-Nonce` header. */
export class UseDpopNonce extends OAuthError {
  override readonly name = 'UseDpopNonce';
  constructor(description = 'The DPoP proof must carry the server nonce.', options?: OAuthErrorOptions) {
    super('use_dpop_nonce', description, options);
  }
}

export function isOAuthError(value: unknown): value is OAuthError {
  return value instanceof OAuthError || (typeof value === 'object' && value !== null && brand in value);
}

const optionsBrand = Symbol.for('svc.OptionsError');

/**
 * A plugin option that is not what the plugin expects. Thrown by a plugin's `options` parser;
 * start-up stops with `plugins.<plugin>.<field>: <problem>`.
 */
export class OptionsError extends Error {
  readonly [optionsBrand] = true;
  override readonly name = 'OptionsError';
  constructor(
    /** The option's name, or a path inside it such as `algorithms[1]`. */
    readonly field: string,
    /** What was expected and what was found. */
    readonly problem: string,
  ) {
    super(`${field}: ${problem}`);
  }
}

export function isOptionsError(value: unknown): value is OptionsError {
  return value instanceof OptionsError || (typeof value === 'object' && value !== null && optionsBrand in value);
}
