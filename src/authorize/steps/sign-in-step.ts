/**
 * The sign-in step: must the person sign in before the request goes on? Then a sign-in method
 * takes over: the form of `sign-in-form.ts`, or a plugin's identity provider
 * (`external-sign-in.ts`). The method is chosen once at start-up, so another way to sign in is
 * another `SignInMethod`, not a branch here.
 */
import type { Clock } from '../../sdk/contracts.js';
import { OAuthError } from '../../oauth/errors.js';
import type { SignInSession } from '../../sessions/sign-in-sessions.js';
import type { AuthorizationRequest } from '../authorization-request.js';
import { redirectError, type FlowOutcome } from '../flow-outcome.js';
import type { Interaction, Interactions } from '../interactions.js';
import type { FlowState, FlowStep } from './flow-step.js';

export interface SignInMethod {
  /** Shows the person where to sign in, for this interaction and browser (the cookie is the step's). */
  start(state: FlowState, interactionId: string, browserId: string): FlowOutcome | Promise<FlowOutcome>;
}

/**
 * OIDC Core §3.1.2.1: `max_age` and `prompt=login` ask for a sign-in newer than the request;
 * `max_age=0` is `prompt=login`, as `auth_time` counts whole seconds and a sign-in earlier in
 * the same second would pass. An `id_token_hint` naming another user than the session's
 * asks for a sign-in too. A sign-in in this interaction meets all of them.
 */
export function needsSignIn(
  request: AuthorizationRequest,
  session: SignInSession | undefined,
  interaction: Interaction | undefined,
  browserId: string | undefined,
  clock: Clock,
): boolean {
  if (!session) return true;
  if (interaction?.signedInAs !== undefined && interaction.signedInAs === browserId) return false;
  if (request.prompt.includes('login') || request.maxAge === 0) return true;
  if (request.hintSubject !== undefined && request.hintSubject !== session.subject) return true;
  return request.maxAge !== undefined && Math.floor(clock.now() / 1000) - session.authTime > request.maxAge;
}

export function createSignInStep(deps: {
  issuer: string;
  clock: Clock;
  interactions: Pick<Interactions, 'start'>;
  newBrowserId(): string;
  method: SignInMethod;
}): FlowStep {
  return {
    name: 'sign-in',
    async run(state) {
      const { request, ctx } = state;
      if (!needsSignIn(request, state.session, state.interaction, state.browserId, deps.clock)) return undefined;
      // OIDC Core §3.1.2.6: with prompt=none the answer is an error, never a page.
      if (request.prompt.includes('none')) return redirectError(deps.issuer, request, new OAuthError('login_required', 'The user must sign in.'));
      const id = state.interactionId ?? (await deps.interactions.start(request, ctx.remoteAddress));
      const browserId = state.browserId ?? deps.newBrowserId();
      const cookie = browserId !== ctx.browserId ? { browserId } : {};
      return { ...(await deps.method.start(state, id, browserId)), ...cookie };
    },
  };
}
