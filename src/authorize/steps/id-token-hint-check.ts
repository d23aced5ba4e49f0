/**
 * OIDC Core §3.1.2.1 `id_token_hint`: an ID token this service issued to this client (it may
 * have expired). Read once, here; only its `sub` goes on with the request (the sign-in step asks
 * for a sign-in when it names another user). A hint that is not one is `invalid_request` at the
 * redirect URI, as node-oidc-provider answers.
 */
import type { Logger } from '../../sdk/contracts.js';
import { InvalidRequest } from '../../oauth/errors.js';
import { redirectError } from '../flow-outcome.js';
import type { IdTokenHint } from '../id-token-hint.js';
import type { RequestCheck } from './flow-step.js';

export function createIdTokenHintCheck(deps: {
  issuer: string;
  /** Without it a hint is refused as invalid. */
  readHint?: ((token: string) => Promise<IdTokenHint | undefined>) | undefined;
  logger: Logger;
}): RequestCheck {
  return async function checkIdTokenHint(request, ctx) {
    const { idTokenHint, ...rest } = request;
    if (idTokenHint === undefined) return request;
    const hint = deps.readHint ? await deps.readHint(idTokenHint) : undefined;
    if (hint?.clientId !== request.clientId) {
      deps.logger.info({ reqId: ctx.requestId, clientId: request.clientId }, hint ? 'id_token_hint was issued to another client' : 'id_token_hint is not an ID token of this service');
      return redirectError(deps.issuer, request, new InvalidRequest('The id_token_hint is not valid.'));
    }
    return { ...rest, hintSubject: hint.sub };
  };
}
