/**
 * Runs a grant validator on a validated token request and turns what it did into either a
 * success or an OAuth error. One channel: a grant refuses by throwing an `OAuthError` with one of
 * `tokenRequestErrorCodes`. A grant that sets no result denies (`invalid_grant`); one that throws
 * anything else, or an error code a token request cannot have, is logged and answered
 * `server_error`. Nothing a grant does crashes the pipeline.
 */
import type { ExtensionGrantValidator, GrantContext, GrantSuccess, JsonValue, Logger, ValidatedTokenRequest } from '../sdk/contracts.js';
import { isStoreUnavailableError } from '../sdk/store-errors.js';
import { InvalidGrant, InvalidScope, isOAuthError, ServerError, tokenRequestErrorCodes } from '../oauth/errors.js';

const tokenRequestErrors: ReadonlySet<string> = new Set(tokenRequestErrorCodes);

export interface GrantOutcome {
  readonly success: GrantSuccess;
  readonly scopes: readonly string[];
  readonly customResponse: Readonly<Record<string, JsonValue>>;
}

const subjectKinds: ReadonlySet<unknown> = new Set(['user', 'client']);

/** A subject a token can be about; anything else is the grant's bug, not the client's. */
function wellFormedSubject(success: GrantSuccess): boolean {
  const subject = success.subject as unknown as Record<string, unknown> | undefined;
  if (typeof subject !== 'object' || subject === null || !subjectKinds.has(subject.kind)) return false;
  if (typeof subject.id !== 'string' || subject.id.length === 0) return false;
  return subject.kind === 'client' || (typeof subject.authTime === 'number' && Number.isFinite(subject.authTime));
}

export async function runGrant(grant: ExtensionGrantValidator, request: ValidatedTokenRequest, logger: Logger): Promise<GrantOutcome> {
  const context: GrantContext = { request, result: undefined, customResponse: {} };
  try {
    await grant.validate(context);
  } catch (err) {
    throw refusal(err, request, logger, 'grant validator threw');
  }
  const result = context.result;
  if (result === undefined) {
    logger.warn({ grantType: request.grantType, clientId: request.client.clientId }, 'grant validator set no result; denied');
    throw new InvalidGrant();
  }
  if (!wellFormedSubject(result)) {
    logger.error({ grantType: request.grantType }, 'grant validator returned a success without a well-formed subject { kind, id, authTime? }');
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
): Promise<Error> {
  if (!grant.spent) return new InvalidGrant('The grant has already been used.');
  let answer: unknown;
  try {
    answer = await grant.spent(handle, request);
  } catch (err) {
    answer = err;
  }
  return refusal(answer, request, logger, 'grant spent rule failed');
}

/**
 * What the client hears for what a grant threw (or `spent` answered): an OAuth error with a
 * token request's code as it is; a store outage as it is (503); anything else `server_error`.
 */
function refusal(err: unknown, request: ValidatedTokenRequest, logger: Logger, what: string): Error {
  if (isStoreUnavailableError(err)) return err as Error;
  if (isOAuthError(err)) {
    if (tokenRequestErrors.has(err.code)) return err;
    logger.error({ grantType: request.grantType, code: String(err.code).slice(0, 100) }, 'grant answered with an error code a token request cannot have');
    return new ServerError();
  }
  logger.error({ err, grantType: request.grantType, clientId: request.client.clientId }, what);
  return new ServerError();
}
