/**
 * The request's client as it is now. A page stays open for minutes: a client removed, disabled
 * or no longer registered at the request's redirect URI meanwhile (RFC 7592 `DELETE`/`PUT`,
 * `svc clients update|disable`) must not receive the code, nor even a denial, at a URI it no
 * longer has; the interaction ends with the page an unknown client gets.
 */
import type { Client } from '../../config/schema.js';
import type { Lookup } from '../../clients/client-directory.js';
import type { Logger } from '../../sdk/contracts.js';
import type { AuthorizationRequest } from '../authorization-request.js';
import { pageMessage, type BrowserContext, type FlowOutcome } from '../flow-outcome.js';
import type { Interactions } from '../interactions.js';
import { isRegisteredRedirectUri } from '../redirect-uri.js';
import type { RequestCheck } from './flow-step.js';

export interface LiveClients {
  /** The client, while the request's redirect URI is still one of its own. */
  liveClient(request: AuthorizationRequest): Client | undefined;
  /** Ends the interaction, if one started, with the unknown-client page. */
  clientGone(request: AuthorizationRequest, ctx: BrowserContext, interactionId: string | undefined): Promise<FlowOutcome>;
  /** The same as a request check, for the first visit. */
  readonly check: RequestCheck;
}

export function createLiveClients(deps: { clients: Lookup<Client>; interactions: Pick<Interactions, 'finish'>; logger: Logger }): LiveClients {
  function liveClient(request: AuthorizationRequest): Client | undefined {
    const client = deps.clients.get(request.clientId);
    return client && isRegisteredRedirectUri(client, request.redirectUri) ? client : undefined;
  }
  async function clientGone(request: AuthorizationRequest, ctx: BrowserContext, interactionId: string | undefined): Promise<FlowOutcome> {
    if (interactionId) await deps.interactions.finish(interactionId);
    deps.logger.info({ reqId: ctx.requestId, clientId: request.clientId }, 'authorization: the client is gone or disabled; the interaction ends');
    return pageMessage(400, 'client-unknown', request.uiLocales);
  }
  return {
    liveClient,
    clientGone,
    check: async (request, ctx) => (liveClient(request) ? request : clientGone(request, ctx, undefined)),
  };
}
