/**
 * The consent page's "Not you? Sign out" (`step=sign-out`), as on the device page: the session
 * ends as at /connect/endsession (the tokens of its codes revoked), and the same request goes
 * through the steps again under a new browser id, so it asks for a sign-in. Nothing signed in
 * or approved in the interaction counts for the next person.
 */
import type { EventService } from '../../events/event-service.js';
import type { Logger } from '../../sdk/contracts.js';
import type { SignInSessions } from '../../sessions/sign-in-sessions.js';
import { isContinued, type InteractionContinuation } from './continued-interaction.js';
import type { InteractionHandler, Proceed } from './flow-step.js';
import type { BackChannelLogout } from '../back-channel-logout.js';

export function createConsentSignOut(deps: {
  sessions: Pick<SignInSessions, 'get' | 'signOut'>;
  continuation: InteractionContinuation;
  newBrowserId(): string;
  proceed: Proceed;
  logger: Logger;
  events?: EventService | undefined;
  /** Tells the session's clients (Back-Channel Logout 1.0), as `/connect/endsession` does. */
  backChannelLogout?: BackChannelLogout | undefined;
}): InteractionHandler {
  return async function consentSignOut(form, ctx) {
    const found = await deps.continuation.continued(form, ctx);
    if (!isContinued(found)) return found;
    const session = await deps.sessions.get(ctx.browserId!);
    if (session) {
      const { revoked } = await deps.sessions.signOut(ctx.browserId!);
      deps.logger.info({ reqId: ctx.requestId, revoked }, 'consent page: signed out; the tokens of the session\'s codes revoked');
      deps.events?.raise({ type: 'user.signed_out', subject: session.subject, clientId: undefined }, ctx.requestId);
      await deps.backChannelLogout?.notify(session, ctx.requestId).catch((err: unknown) => deps.logger.warn({ reqId: ctx.requestId, err }, 'back-channel logout could not be queued'));
    }
    const { request } = found.interaction;
    return deps.proceed(request, ctx, found.id, { request }, deps.newBrowserId());
  };
}
