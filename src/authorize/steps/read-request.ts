/**
 * The first request check: the authorization request from the front channel (RFC 6749 §4.1.1,
 * OIDC Core §3.1.2.1) or from a pushed request (RFC 9126 §4). A failure before the redirect URI
 * is trusted is shown on a page; after, it goes to the redirect URI (RFC 6749 §4.1.2.1).
 */
import type { Client } from '../../config/schema.js';
import type { Lookup } from '../../clients/client-directory.js';
import type { Logger } from '../../sdk/contracts.js';
import { errorResponse } from '../authorization-response.js';
import { RedirectableError, UntrustedRequestError, type AuthorizationRequest, type RequestValidator } from '../authorization-request.js';
import { pageMessage, type BrowserContext, type FlowOutcome } from '../flow-outcome.js';
import { shownReason } from '../../pages/sign-in-views.js';
import { requestUriPrefix, type PushedRequests } from '../pushed-requests.js';

export type RequestReader = (params: ReadonlyMap<string, string>, ctx: BrowserContext) => Promise<AuthorizationRequest | FlowOutcome>;

const LINK_USED = 'This sign-in link has expired or was already used. Go back to the application and start again.';

export function createRequestReader(deps: {
  issuer: string;
  clients: Lookup<Client>;
  validator: RequestValidator;
  pushed: Pick<PushedRequests, 'take'>;
  logger: Logger;
}): RequestReader {
  /**
   * RFC 9126 §4: `client_id` and `request_uri` name a pushed request, used once; the front
   * channel's other parameters are ignored. Until the request is found its redirect URI is
   * unknown, so failures are shown on the page.
   */
  async function pushedRequest(params: ReadonlyMap<string, string>): Promise<AuthorizationRequest> {
    const clientId = params.get('client_id');
    const client = clientId === undefined ? undefined : deps.clients.get(clientId);
    // The same page as a request_uri that does not fit: it says nothing about which client ids exist.
    if (!client) throw new UntrustedRequestError('link-used', LINK_USED, 'pushed request without a known client_id');
    const requestUri = params.get('request_uri')!;
    if (!requestUri.startsWith(requestUriPrefix)) deps.validator.refuseRequestUriByReference(params);
    const found = await deps.pushed.take(requestUri.slice(0, 200), client.clientId);
    if (!found) throw new UntrustedRequestError('link-used', LINK_USED, 'request_uri unknown, expired, used or of another client');
    return found;
  }

  return async function readRequest(params, ctx) {
    try {
      return params.has('request_uri') ? await pushedRequest(params) : await deps.validator.read(params, { pushed: false });
    } catch (err) {
      if (err instanceof UntrustedRequestError) {
        deps.logger.info({ reqId: ctx.requestId, detail: err.logDetail }, 'authorization request refused before its redirect URI was trusted');
        return pageMessage(400, shownReason(err.reason), params.get('ui_locales'));
      }
      if (err instanceof RedirectableError) {
        deps.logger.info({ reqId: ctx.requestId, error: err.error.code, detail: err.error.logDetail }, 'authorization request refused');
        return { status: 200, response: errorResponse(deps.issuer, err.target, err.error), redirectUri: err.target.redirectUri };
      }
      throw err;
    }
  };
}
