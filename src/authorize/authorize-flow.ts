/**
 * The authorization endpoint's decisions, without HTTP (RFC 6749 §4.1, OIDC Core §3.1.2), as
 * steps with a file each under `steps/`: the request checks (read the request, its client still
 * registered, the `id_token_hint`), then an ordered list of steps that may stop the request for a
 * page (sign-in, consent), then the response (the code). The sign-in and consent pages post back
 * here with the interaction id and a CSRF token bound to the browser's cookie, and a sign-in or a
 * consent takes the request through the list again. A new requirement before the code (a second
 * factor) is a step in `steps` with a POST handler in `interactionHandlers`; a new way to sign in
 * (an upstream identity provider) is a `SignInMethod`. Everything here is built once at start-up.
 */
import type { Client, ResolvedConfig } from '../config/schema.js';
import type { Clock, ExternalSignIn, Logger, ResourceOwnerValidator } from '../sdk/contracts.js';
import type { EventService } from '../events/event-service.js';
import type { Csrf } from '../pages/csrf.js';
import type { ScopeDescriptions } from '../pages/device-views.js';
import type { PasswordThrottle } from '../throttling/password-throttle.js';
import { createThrottledSignIn } from '../throttling/throttled-sign-in.js';
import type { SignInSessions } from '../sessions/sign-in-sessions.js';
import type { AuthorizationRequest, RequestValidator } from './authorization-request.js';
import type { AuthorizationCodes } from './authorization-codes.js';
import type { Interaction, Interactions } from './interactions.js';
import type { PushedRequests } from './pushed-requests.js';
import type { Lookup } from '../clients/client-directory.js';
import type { IdTokenHint } from './id-token-hint.js';
import { pageMessage, type BrowserContext, type FlowOutcome, type SentOutcome } from './flow-outcome.js';
import type { ResponseSealer } from './jarm.js';
import { createCodeResponse } from './steps/code-response.js';
import { createConsentStep } from './steps/consent-step.js';
import { createConsentSignOut } from './steps/consent-sign-out.js';
import type { BackChannelLogout } from './back-channel-logout.js';
import { createInteractionContinuation } from './steps/continued-interaction.js';
import { createExternalSignIn } from './steps/external-sign-in.js';
import { isRequest, type FlowState, type FlowStep, type InteractionHandler, type RequestCheck } from './steps/flow-step.js';
import { createIdTokenHintCheck } from './steps/id-token-hint-check.js';
import { createLiveClients } from './steps/live-client.js';
import { createRequestReader } from './steps/read-request.js';
import { createSignInForm, type SignInCheck } from './steps/sign-in-form.js';
import { createSignInStep } from './steps/sign-in-step.js';
import { createSignedIn } from './steps/signed-in.js';
import { createSecondFactorStep } from './steps/second-factor-step.js';
import type { SecondFactorService } from '../second-factor/second-factors.js';
import type { PasskeyService } from '../second-factor/passkeys.js';
import { createPasskeySignIn } from './steps/passkey-sign-in.js';
import { createUpstreamChoice } from './steps/upstream-choice.js';

export type { BrowserContext, FlowOutcome, SentOutcome } from './flow-outcome.js';

export interface AuthorizeFlowDeps {
  config: ResolvedConfig;
  /** Every client of every store; default: the config's. */
  clients?: Lookup<Client>;
  validator: RequestValidator;
  sessions: SignInSessions;
  interactions: Interactions;
  codes: AuthorizationCodes;
  pushed: PushedRequests;
  users: ResourceOwnerValidator;
  /** The password grant's throttle: wrong passwords count the same here, on the device page and at the token endpoint. */
  passwordThrottle: PasswordThrottle;
  /** Judges the sign-in form; default: `username` and `password` against `users` (a plugin's `SignInPage` may replace it). */
  authenticate?: SignInCheck | undefined;
  csrf: Csrf;
  newBrowserId(): string;
  /** A plugin's external identity provider (or the configured `identityProviders`), in place of the sign-in form. */
  external?: ExternalSignIn | undefined;
  /** The absolute URL of the callback route (`paths.signInCallback`). */
  callbackUrl: string;
  scopeDescriptions: ScopeDescriptions;
  clock: Clock;
  logger: Logger;
  events?: EventService | undefined;
  /** Reads an `id_token_hint` (`readIdTokenHint`); without it a hint is refused as invalid. */
  readHint?: ((token: string) => Promise<IdTokenHint | undefined>) | undefined;
  /** Back-Channel Logout 1.0, when the consent page's "Not you?" ends a session. */
  backChannelLogout?: BackChannelLogout | undefined;
  /** Issue 36: fetches the client ID metadata document a `client_id` names (`ClientDirectory.prepare`); answers why it cannot be used. */
  prepareClient?: ((clientId: string | undefined) => Promise<string | undefined>) | undefined;
  /** JARM (`jarm.ts`): signs a response in a `*.jwt` mode, the last thing before it leaves; without it such a response is a failure. */
  sealResponse?: ResponseSealer | undefined;
  /** Issue 35: one-time codes of the users the database keeps; without it no second step. */
  secondFactors?: {
    readonly service: SecondFactorService;
    /** With `secondFactor.passkeys`: passkeys as a second factor and to sign in without a password. */
    readonly passkeys?: PasskeyService | undefined;
    /** The username of a user the database keeps, else undefined. */
    accountOf(subject: string): Promise<string | undefined>;
  } | undefined;
}

const noJarm: ResponseSealer = async (outcome) => {
  if (outcome.response?.kind === 'jwt') throw new Error('a JARM response mode without a signer (AuthorizeFlowDeps.sealResponse)');
  return outcome as SentOutcome;
};

export function createAuthorizeFlow(deps: AuthorizeFlowDeps) {
  const { config, clock, logger, events, sessions, interactions } = deps;
  const issuer = config.issuer;
  const clients: Lookup<Client> = deps.clients ?? new Map(config.clients.map((c) => [c.clientId, c]));
  const live = createLiveClients({ clients, interactions, logger });
  const continuation = createInteractionContinuation({ csrf: deps.csrf, interactions, logger });
  const signedIn = createSignedIn({ sessions, interactions, events, newBrowserId: deps.newBrowserId, proceed });

  const readRequest = createRequestReader({ issuer, clients, validator: deps.validator, pushed: deps.pushed, logger });
  /** In order, after the request is read; each may answer instead. */
  const requestChecks: readonly RequestCheck[] = [live.check, createIdTokenHintCheck({ issuer, readHint: deps.readHint, logger })];

  /** Issue 34: several identity providers to choose from, a button each on the sign-in page. */
  const choice = createUpstreamChoice({ external: deps.external, csrf: continuation });
  const passkeys = deps.secondFactors?.passkeys;
  const accountOf = deps.secondFactors?.accountOf;
  const passkeySignIn = passkeys && accountOf && createPasskeySignIn({
    passkeys, canSignIn: async (subject) => (await accountOf(subject)) !== undefined, continuation, live, signedIn, events,
  });
  const signInForm = createSignInForm({
    passkeyOptions: passkeySignIn?.options,
    users: deps.users, authenticate: deps.authenticate, throttle: createThrottledSignIn({ passwordThrottle: deps.passwordThrottle, clock }),
    continuation, live, signedIn, events, choice,
  });
  const external = deps.external && createExternalSignIn({ external: deps.external, choice, callbackUrl: deps.callbackUrl, continuation, interactions, live, signedIn, logger, events });
  const consent = createConsentStep({ issuer, users: deps.users, scopeDescriptions: deps.scopeDescriptions, sessions, interactions, continuation, live, proceed, events });
  const secondFactor = deps.secondFactors && createSecondFactorStep({
    issuer, factors: deps.secondFactors.service, accountOf: deps.secondFactors.accountOf, enrolmentRequired: config.secondFactor.enrolmentRequired, passkeys,
    mfaScopes: new Set(config.apiResources.filter((api) => api.requiredAcr === 'mfa').flatMap((api) => api.scopes)),
    sessions, interactions, continuation, live, proceed, events,
  });
  /** In order, each time the request goes on; the first to answer stops it for a page or an error. */
  const steps: readonly FlowStep[] = [
    createSignInStep({ issuer, clock, interactions, newBrowserId: deps.newBrowserId, method: external ?? signInForm }),
    ...(secondFactor ? [secondFactor] : []),
    consent,
  ];
  const respond = createCodeResponse({ issuer, codes: deps.codes, sessions, interactions, events });
  /** The pages' POSTs by their form's `step`. The form's stays when an identity provider signs people in, as it always has. */
  const interactionHandlers = new Map<string, InteractionHandler>([
    ['sign-in', signInForm.submit],
    ['consent', consent.submit],
    ['sign-out', createConsentSignOut({ sessions, continuation, newBrowserId: deps.newBrowserId, proceed, logger, events, backChannelLogout: deps.backChannelLogout })],
    // Issue 35: the second step's pages.
    ...(secondFactor ? [['second-factor', secondFactor.submit] as const, ['enrol-second-factor', secondFactor.enrol] as const, ['second-factor-continue', secondFactor.next] as const] : []),
    ...(secondFactor && passkeys ? [['second-factor-passkey', secondFactor.passkey] as const] : []),
    ...(passkeySignIn ? [['passkey-sign-in', passkeySignIn.submit] as const] : []),
    // Issue 34: a provider's button (`upstream-choice.ts`).
    ...(external?.choose ? [['upstream', external.choose] as const] : []),
  ]);

  /** Without an identity provider the callback route has nothing to continue. */
  const callback: InteractionHandler = external ? external.callback : async () => pageMessage(404, 'start-again');

  /** Takes the request as far as it can go: a sign-in page, a consent page or the code. */
  async function proceed(request: AuthorizationRequest, ctx: BrowserContext, interactionId: string | undefined, interaction: Interaction | undefined, newBrowserId?: string): Promise<FlowOutcome> {
    const client = live.liveClient(request);
    if (!client) return live.clientGone(request, ctx, interactionId);
    const browserId = newBrowserId ?? ctx.browserId;
    const session = browserId === undefined ? undefined : await sessions.get(browserId);
    const state: FlowState = { request, client, ctx, interactionId, interaction, browserId, newBrowserId, session };
    for (const step of steps) {
      const outcome = await step.run(state);
      if (outcome) return outcome;
    }
    return respond(state);
  }

  async function authorize(params: ReadonlyMap<string, string>, ctx: BrowserContext): Promise<FlowOutcome> {
    // Issue 36: before anything reads the client, so a document's client is found like any other.
    const documentFailure = await deps.prepareClient?.(params.get('client_id'));
    if (documentFailure !== undefined) {
      logger.info({ reqId: ctx.requestId, clientId: params.get('client_id'), detail: documentFailure }, 'authorization request refused: the client ID metadata document cannot be used');
      return pageMessage(400, 'client-document-unusable', params.get('ui_locales'));
    }
    let request = await readRequest(params, ctx);
    for (const check of requestChecks) {
      if (!isRequest(request)) return request;
      request = await check(request, ctx);
    }
    return isRequest(request) ? proceed(request, ctx, undefined, undefined) : request;
  }

  const seal = deps.sealResponse ?? noJarm;
  return {
    /** GET/POST /connect/authorize. */
    authorize: async (params: ReadonlyMap<string, string>, ctx: BrowserContext): Promise<SentOutcome> => seal(await authorize(params, ctx)),
    /** POST of the sign-in and consent pages. */
    async interact(form: ReadonlyMap<string, string>, ctx: BrowserContext): Promise<SentOutcome> {
      const handler = interactionHandlers.get(form.get('step') ?? '');
      return seal(handler ? await handler(form, ctx) : pageMessage(400, 'start-again'));
    },
    /** GET/POST of the external sign-in's callback route. */
    callback: async (form: ReadonlyMap<string, string>, ctx: BrowserContext): Promise<SentOutcome> => seal(await callback(form, ctx)),
  };
}

export type AuthorizeFlow = ReturnType<typeof createAuthorizeFlow>;
