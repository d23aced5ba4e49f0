/**
 * Runs a grant validator on a validated token request and turns its result into either a
 * success or an OAuth error. A grant that sets no result denies (`invalid_grant`); one that
 * throws is logged and answered `server_error`. Neither crashes the pipeline.
 */
import type {
  ExtensionGrantValidator, GrantContext, GrantError, GrantSuccess, JsonValue, Logger, TokenRequestErrorCode, ValidatedTokenRequest,
} from '../sdk/contracts.js';
import { isGrantError } from '../sdk/contracts.js';
import { StoreUnavailableError } from '../store/store.js';
import { InvalidGrant, InvalidScope, isOAuthError, OAuthError, ServerError } from './errors.js';

/** RFC 6749 §5.2 and RFC 8628 §3.5: what a grant may answer. */
const tokenRequestErrors: ReadonlySet<string> = new Set<TokenRequestErrorCode>([
  'invalid_request', 'invalid_grant', 'unauthorized_client', 'invalid_scope', 'invalid_target',
  'authorization_pending', 'slow_down', 'access_denied', 'expired_token',
]);

export interface GrantOutcome {
  readonly success: GrantSuccess;
  readonly scopes: readonly string[];
  readonly customResponse: Readonly<Record<string, JsonValue>>;
}

export async function runGrant(grant: ExtensionGrantValidator, request: ValidatedTokenRequest, logger: Logger): Promise<GrantOutcome> {
  const context: GrantContext = { request, result: undefined, customResponse: {} };
  try {
    await grant.validate(context);
  } catch (err) {
    if (isOAuthError(err) || err instanceof StoreUnavailableError) throw err;
    logger.error({ err, grantType: request.grantType, clientId: request.client.clientId }, 'grant validator threw');
    throw new ServerError();
  }
  const result = context.result;
  if (result === undefined) {
    logger.warn({ grantType: request.grantType, clientId: request.client.clientId }, 'grant validator set no result; denied');
    throw new InvalidGrant();
  }
  if (isGrantError(result)) throw toOAuthError(result, request, logger);
  if (typeof result.subject !== 'string' || result.subject.length === 0) {
    logger.error({ grantType: request.grantType }, 'grant validator returned a success without a subject');
    throw new ServerError();
  }
  const scopes = result.scopes ?? request.requestedScopes;
  // A grant may narrow what was asked for; with no `scope` sent, it may choose among what the client is allowed.
  const client = request.client;
  const permitted = (s: string): boolean =>
    request.scopeRequested
      ? request.requestedScopes.includes(s)
      : client.allowedScopes.includes(s) || (s === 'offline_access' && client.allowOfflineAccess);
  if (!scopes.every(permitted)) {
    throw new InvalidScope('The grant produced scopes beyond those requested.');
  }
  return { success: result, scopes, customResponse: context.customResponse };
}

/**
 * The answer when the one-time grant a success `consumes` was spent by another request before
 * the tokens were stored: the grant's own `spent` rule (which may revoke what the first
 * redemption issued), else `invalid_grant`.
 */
export async function answerSpentGrant(
  grant: ExtensionGrantValidator, handle: string, request: ValidatedTokenRequest, logger: Logger,
): Promise<OAuthError> {
  if (!grant.spent) return new InvalidGrant('The grant has already been used.');
  let answer: GrantError;
  try {
    answer = await grant.spent(handle, request);
  } catch (err) {
    if (isOAuthError(err) || err instanceof StoreUnavailableError) throw err;
    logger.error({ err, grantType: request.grantType, clientId: request.client.clientId }, 'grant spent rule threw');
    return new ServerError();
  }
  return toOAuthError(answer, request, logger);
}

function toOAuthError(result: GrantError, request: ValidatedTokenRequest, logger: Logger): OAuthError {
  if (!tokenRequestErrors.has(result.error)) {
    logger.error({ grantType: request.grantType, code: String(result.error).slice(0, 100) }, 'grant validator answered with an error code a token request cannot have');
    return new ServerError();
  }
  // OAuthError keeps the description within RFC 6749 §5.2's characters and 500 long, whatever the grant wrote.
  const description = typeof result.description === 'string' ? result.description : defaultDescription(result.error);
  return new OAuthError(result.error, description);
}

function defaultDescription(code: string): string {
  return code === 'invalid_grant' ? 'The grant is invalid.' : `The request failed: ${code}.`;
}
