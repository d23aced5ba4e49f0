/**
 * The response, once every step let the request pass: an authorization code for the signed-in
 * subject (RFC 6749 §4.1.2), bound to the request's redirect URI, PKCE challenge, nonce, session
 * and DPoP key (RFC 9449 §10), and noted in the session so signing out revokes what it yields.
 */
import type { EventService } from '../../events/event-service.js';
import type { SignInSessions } from '../../sessions/sign-in-sessions.js';
import type { AuthorizationCodes } from '../authorization-codes.js';
import { redirectResponse, type FlowOutcome } from '../flow-outcome.js';
import type { Interactions } from '../interactions.js';
import { signedInSession, withNewCookie, type FlowState } from './flow-step.js';
import { authenticationOf } from '../acr.js';

export type FlowResponse = (state: FlowState) => Promise<FlowOutcome>;

export function createCodeResponse(deps: {
  issuer: string;
  codes: Pick<AuthorizationCodes, 'issue'>;
  sessions: Pick<SignInSessions, 'codeIssued'>;
  interactions: Pick<Interactions, 'finish'>;
  events?: EventService | undefined;
}): FlowResponse {
  return async function respondWithCode(state) {
    const { request, client, ctx } = state;
    const session = signedInSession(state, 'response');
    const { code, family } = await deps.codes.issue({
      clientId: client.clientId, subject: session.subject, lifetimeSeconds: client.authorizationCodeLifetime,
      grant: {
        redirectUri: request.redirectUri, codeChallenge: request.codeChallenge, scopes: request.scopes, nonce: request.nonce, sid: session.sid, authTime: session.authTime,
        ...(request.dpopJkt === undefined ? {} : { dpopJkt: request.dpopJkt }),
        ...(request.resources === undefined ? {} : { resources: request.resources }),
        ...authenticationOf(session.amr, request.acr),
        ...(session.idp === undefined ? {} : { idp: session.idp }),
      },
    });
    if (state.interactionId) await deps.interactions.finish(state.interactionId);
    await deps.sessions.codeIssued(state.browserId!, client.clientId, family);
    deps.events?.raise({ type: 'code.issued', clientId: client.clientId, subject: session.subject, scopes: request.scopes }, ctx.requestId);
    return withNewCookie(state, redirectResponse(deps.issuer, request, { code }));
  };
}
