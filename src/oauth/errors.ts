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
  | 'server_error';

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
};

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
    super(description, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = options.status ?? defaultStatus[code];
    this.description = description;
    this.logDetail = options.logDetail;
    this.headers = options.headers ?? {};
  }

  /** The response body, RFC 6749 §5.2. */
  toJSON(): { error: OAuthErrorCode; error_description: string } {
    return { error: this.code, error_description: this.description };
  }
}

type Ctor = new (description?: string, options?: OAuthErrorOptions) => OAuthError;

function errorClass(code: OAuthErrorCode, name: string, fallback: string): Ctor {
  const cls = class extends OAuthError {
    override readonly name = name;
    constructor(description = fallback, options?: OAuthErrorOptions) {
      super(code, description, options);
    }
  };
  Object.defineProperty(cls, 'name', { value: name });
  return cls;
}

export const InvalidRequest = errorClass('invalid_request', 'InvalidRequest', 'The request is malformed.');
export const InvalidClient = errorClass('invalid_client', 'InvalidClient', 'Client authentication failed.');
export const InvalidGrant = errorClass('invalid_grant', 'InvalidGrant', 'The grant is invalid.');
export const UnauthorizedClient = errorClass(
  'unauthorized_client',
  'UnauthorizedClient',
  'The client is not allowed to use this grant type.',
);
export const UnsupportedGrantType = errorClass(
  'unsupported_grant_type',
  'UnsupportedGrantType',
  'The grant type is not supported.',
);
export const InvalidScope = errorClass('invalid_scope', 'InvalidScope', 'The requested scope is invalid.');
export const InvalidTarget = errorClass('invalid_target', 'InvalidTarget', 'The requested resource is invalid.');
export const UnsupportedTokenType = errorClass(
  'unsupported_token_type',
  'UnsupportedTokenType',
  'This token type cannot be handled.',
);
export const AuthorizationPending = errorClass(
  'authorization_pending',
  'AuthorizationPending',
  'The user has not yet approved the request.',
);
export const SlowDown = errorClass('slow_down', 'SlowDown', 'Polling too fast; slow down.');
export const AccessDenied = errorClass('access_denied', 'AccessDenied', 'The request was denied.');
export const ExpiredToken = errorClass('expired_token', 'ExpiredToken', 'The code has expired.');
export const TemporarilyUnavailable = errorClass(
  'temporarily_unavailable',
  'TemporarilyUnavailable',
  'The service is temporarily unavailable; try again later.',
);
export const ServerError = errorClass('server_error', 'ServerError', 'An unexpected error occurred.');

export function isOAuthError(value: unknown): value is OAuthError {
  return value instanceof OAuthError || (typeof value === 'object' && value !== null && brand in value);
}
