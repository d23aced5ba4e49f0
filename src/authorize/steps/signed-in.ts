/** After any sign-in (the form, an identity provider): a new session under a new browser id, then on with the request. */
import type { EventService } from '../../events/event-service.js';
import type { SignInSessions } from '../../sessions/sign-in-sessions.js';
import type { BrowserContext, FlowOutcome } from '../flow-outcome.js';
import type { Interaction, Interactions } from '../interactions.js';
import type { Proceed } from './flow-step.js';

/**
 * `amr`: the RFC 8176 methods of this sign-in (`['pwd']` for our form), kept in the session (issue 35);
 * `idp`: the upstream identity provider's name, for a sign-in there (issue 34), and `logoutHint`
 * what signing out there needs (`ExternalSignInResult.logoutHint`).
 */
export type SignedIn = (subject: string, ctx: BrowserContext, interactionId: string, interaction: Interaction, via: string, amr?: readonly string[], idp?: string, logoutHint?: string) => Promise<FlowOutcome>;

export function createSignedIn(deps: {
  sessions: Pick<SignInSessions, 'get' | 'start' | 'end'>;
  interactions: Pick<Interactions, 'update'>;
  events?: EventService | undefined;
  newBrowserId(): string;
  proceed: Proceed;
}): SignedIn {
  return async function signedIn(subject, ctx, id, interaction, via, amr, idp, logoutHint) {
    // A new browser id at every sign-in: an id planted before (session fixation) signs nobody in.
    const browserId = deps.newBrowserId();
    const previous = await deps.sessions.get(ctx.browserId!);
    await deps.sessions.start(browserId, subject, previous && { browserId: ctx.browserId!, session: previous }, amr, idp, logoutHint);
    await deps.sessions.end(ctx.browserId!);
    const next: Interaction = { ...interaction, signedInAs: browserId };
    await deps.interactions.update(id, next);
    deps.events?.raise({ type: 'user.signed_in', subject, via }, ctx.requestId);
    return deps.proceed(interaction.request, ctx, id, next, browserId);
  };
}
