/**
 * The authorize flow is an ordered list of steps (node-oidc-provider keeps one check per file
 * under `lib/actions/authorization/`): each looks at the request as it stands and either answers
 * (a page, a redirect, an error at the redirect URI) or hands it on. A new requirement before the
 * code (a second factor, say) is one more step in the list in `authorize-flow.ts`, not a branch.
 */
import type { Client } from '../../config/schema.js';
import type { SignInSession } from '../../sessions/sign-in-sessions.js';
import type { AuthorizationRequest } from '../authorization-request.js';
import type { BrowserContext, FlowOutcome } from '../flow-outcome.js';
import type { Interaction } from '../interactions.js';

/** The request as it stands when the steps look at it; built once per pass through the list. */
export interface FlowState {
  readonly request: AuthorizationRequest;
  /** The request's client as it is now (`LiveClients.liveClient`). */
  readonly client: Client;
  readonly ctx: BrowserContext;
  /** The interaction a page's POST continues; none on the first visit. */
  readonly interactionId: string | undefined;
  readonly interaction: Interaction | undefined;
  /** The browser's id: the one set at a sign-in in this request, else the cookie's. */
  readonly browserId: string | undefined;
  /** A browser id given at a sign-in in this request, which the answer must set in the cookie. */
  readonly newBrowserId: string | undefined;
  /** The browser's sign-in session, if any. */
  readonly session: SignInSession | undefined;
}

export interface FlowStep {
  /** What the step checks, for the list's readers and stack traces. */
  readonly name: string;
  /** An outcome ends the request here; `undefined` hands it to the next step. */
  run(state: FlowState): Promise<FlowOutcome | undefined>;
}

/** Takes a request (again) through the steps: from the first visit, a sign-in or a consent. */
export type Proceed = (
  request: AuthorizationRequest,
  ctx: BrowserContext,
  interactionId: string | undefined,
  interaction: Interaction | undefined,
  newBrowserId?: string,
) => Promise<FlowOutcome>;

/** A check of the request before any step, which may replace it (e.g. with what a hint said) or answer. */
export type RequestCheck = (request: AuthorizationRequest, ctx: BrowserContext) => Promise<AuthorizationRequest | FlowOutcome>;

/** A page's POST (or the identity provider's callback), by the form's `step`. */
export type InteractionHandler = (form: ReadonlyMap<string, string>, ctx: BrowserContext) => Promise<FlowOutcome>;

export const isRequest = (value: AuthorizationRequest | FlowOutcome): value is AuthorizationRequest => 'clientId' in value;

/** The browser id given at sign-in goes with every answer after it, so the browser keeps its new session. */
export const withNewCookie = (state: FlowState, outcome: FlowOutcome): FlowOutcome =>
  (state.newBrowserId ? { ...outcome, browserId: state.newBrowserId } : outcome);

/** The session of a step that runs after the sign-in step, which lets no request without one pass. */
export function signedInSession(state: FlowState, step: string): SignInSession {
  if (!state.session) throw new Error(`the ${step} step ran without a session: it belongs after the sign-in step`);
  return state.session;
}
