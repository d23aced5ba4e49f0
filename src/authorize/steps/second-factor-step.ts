/**
 * The second step of a sign-in (issue 35), after the sign-in step and before consent: a person
 * whose session has no second factor yet gives one when
 *
 * - they have one (an active TOTP secret): a one-time code or a recovery code, every time;
 * - the client has `requireMfa`, a requested scope is an API's with `requiredAcr: 'mfa'`, or
 *   the request's essential `acr` only `mfa` meets
 *   (OIDC Core §5.5.1.1): a user the database keeps sets one up on the spot, anyone else's
 *   request is refused with `unmet_authentication_requirements`;
 * - the deployment has `secondFactor.enrolmentRequired`: the password sign-in is the grace
 *   sign-in that leads to enrolment, and the request goes on once the new factor is confirmed.
 *
 * A voluntary `acr_values=mfa` asks for the code of a person who has a factor (they are asked
 * anyway) and is otherwise met with `pwd`, as OIDC Core §3.1.2.1 allows. A new factor's
 * recovery codes are shown once before the request goes on. Codes go through
 * `SecondFactorService` (throttled, single use); this file only decides and shows.
 */
import type { EventService } from '../../events/event-service.js';
import { OAuthError } from '../../oauth/errors.js';
import type { SecondFactorNoticeId } from '../../pages/second-factor-views.js';
import type { SignInView } from '../../pages/sign-in-views.js';
import { qrCodeSvg } from '../../second-factor/qr-code.js';
import type { SecondFactorService } from '../../second-factor/second-factors.js';
import type { PasskeyService } from '../../second-factor/passkeys.js';
import type { SignInSessions } from '../../sessions/sign-in-sessions.js';
import { acrMultiFactor, acrOf, secondFactorDemand } from '../acr.js';
import type { AuthorizationRequest } from '../authorization-request.js';
import { clientName, languageOf, pageMessage, redirectError, type BrowserContext, type FlowOutcome } from '../flow-outcome.js';
import type { Interaction, Interactions } from '../interactions.js';
import { isContinued, type InteractionContinuation } from './continued-interaction.js';
import { signedInSession, withNewCookie, type FlowStep, type InteractionHandler, type Proceed } from './flow-step.js';
import type { LiveClients } from './live-client.js';

/** RFC 8176 methods a second factor adds to the session's `pwd`. */
const secondFactorMethods = ['otp', 'mfa'] as const;

export interface SecondFactorStep extends FlowStep {
  /** POST `step=second-factor`: a one-time code or a recovery code. */
  readonly submit: InteractionHandler;
  /** POST `step=enrol-second-factor`: the first code of a new secret. */
  readonly enrol: InteractionHandler;
  /** POST `step=second-factor-continue`: on from the recovery codes page. */
  readonly next: InteractionHandler;
  /** POST `step=second-factor-passkey`: a passkey's assertion in place of a code. */
  readonly passkey: InteractionHandler;
}

export function createSecondFactorStep(deps: {
  issuer: string;
  factors: SecondFactorService;
  /** The username of a user the database keeps (who can set up a factor), else undefined. */
  accountOf(subject: string): Promise<string | undefined>;
  enrolmentRequired: boolean;
  sessions: Pick<SignInSessions, 'get' | 'factorsGiven'>;
  interactions: Pick<Interactions, 'start'>;
  continuation: InteractionContinuation;
  live: LiveClients;
  proceed: Proceed;
  events?: EventService | undefined;
  /** With `secondFactor.passkeys`: a person's passkeys count as their second factor too. */
  passkeys?: PasskeyService | undefined;
  /** The scopes of APIs with `requiredAcr: 'mfa'`: a request for one needs a second factor, as `requireMfa` does. */
  mfaScopes?: ReadonlySet<string> | undefined;
}): SecondFactorStep {
  const { continuation, live } = deps;

  const page = (request: AuthorizationRequest, status: number, view: SignInView, headers?: Record<string, string>): FlowOutcome =>
    ({ status, view, redirectUri: request.redirectUri, ...languageOf(request), ...(headers ? { headers } : {}) });

  async function enrolmentPage(request: AuthorizationRequest, subject: string, account: string, id: string, browserId: string, status = 200, notice?: SecondFactorNoticeId): Promise<FlowOutcome> {
    const enrolment = (await deps.factors.pendingEnrolment(subject, account)) ?? (await deps.factors.startEnrolment(subject, account));
    if (!enrolment) return pageMessage(400, 'start-again', request.uiLocales);
    const client = live.liveClient(request);
    const view: SignInView = {
      kind: 'enrol-second-factor', interaction: id, csrf: continuation.tokenFor(browserId, id), clientName: client ? clientName(client) : request.clientId,
      enrolment: { secret: enrolment.secret, qrSvg: await qrCodeSvg(enrolment.uri) }, ...(notice ? { notice } : {}),
    };
    return page(request, status, view);
  }

  async function codePage(request: AuthorizationRequest, subject: string, id: string, browserId: string, status = 200, notice?: SecondFactorNoticeId, headers?: Record<string, string>): Promise<FlowOutcome> {
    const client = live.liveClient(request);
    const factors = await deps.factors.status(subject);
    const passkeyOptions = deps.passkeys && factors.passkeys > 0 ? JSON.stringify(await deps.passkeys.authenticationOptions(subject)) : undefined;
    const view: SignInView = {
      kind: 'second-factor', interaction: id, csrf: continuation.tokenFor(browserId, id), clientId: request.clientId,
      clientName: client ? clientName(client) : request.clientId, ...(notice ? { notice } : {}),
      code: factors.totp === 'active' || factors.recoveryCodesLeft > 0, ...(passkeyOptions === undefined ? {} : { passkeyOptions }),
    };
    return page(request, status, view, headers);
  }

  /** The POSTed page's interaction and the browser's session, or the start-again page. */
  async function continued(form: ReadonlyMap<string, string>, ctx: BrowserContext) {
    const found = await continuation.continued(form, ctx);
    if (!isContinued(found)) return found;
    const session = await deps.sessions.get(ctx.browserId!);
    if (!session) return pageMessage(400, 'start-again', found.interaction.request.uiLocales);
    return { ...found, session };
  }

  async function given(ctx: BrowserContext, id: string, interaction: Interaction, methods: readonly string[] = secondFactorMethods): Promise<FlowOutcome> {
    await deps.sessions.factorsGiven(ctx.browserId!, methods);
    return deps.proceed(interaction.request, ctx, id, interaction);
  }

  const codeOf = (form: ReadonlyMap<string, string>): string => (form.get('code') ?? '').slice(0, 64).trim();

  return {
    name: 'second-factor',
    async run(state) {
      const { request, client } = state;
      const session = signedInSession(state, 'second-factor');
      if (acrOf(session.amr) === acrMultiFactor) return undefined;
      const demand = secondFactorDemand(request.acr, client.requireMfa === true || request.scopes.some((s) => deps.mfaScopes?.has(s) === true));
      if (demand === 'unmeetable') {
        return withNewCookie(state, redirectError(deps.issuer, request, new OAuthError('unmet_authentication_requirements', 'The requested authentication context class cannot be met.')));
      }
      const active = await deps.factors.hasActive(session.subject);
      const mustEnrol = !active && (demand === 'required' || deps.enrolmentRequired);
      if (!active && !mustEnrol) return undefined;
      const account = mustEnrol ? await deps.accountOf(session.subject) : undefined;
      if (mustEnrol && account === undefined) {
        // Nobody the database keeps: no factor can be set up for them here.
        if (demand !== 'required') return undefined;
        return withNewCookie(state, redirectError(deps.issuer, request, new OAuthError('unmet_authentication_requirements', 'This sign-in needs a second factor, which the user has not set up.')));
      }
      // OIDC Core §3.1.2.6: with prompt=none a page is never shown.
      if (request.prompt.includes('none')) return withNewCookie(state, redirectError(deps.issuer, request, new OAuthError('interaction_required', 'The user must give a second factor.')));
      const id = state.interactionId ?? (await deps.interactions.start(request, state.ctx.remoteAddress));
      const outcome = account !== undefined
        ? await enrolmentPage(request, session.subject, account, id, state.browserId!)
        : await codePage(request, session.subject, id, state.browserId!);
      return withNewCookie(state, outcome);
    },

    async submit(form, ctx) {
      const found = await continued(form, ctx);
      if (!('session' in found)) return found;
      const { id, interaction, session } = found;
      const request = interaction.request;
      if (!live.liveClient(request)) return live.clientGone(request, ctx, id);
      const code = codeOf(form);
      if (code === '') return codePage(request, session.subject, id, ctx.browserId!, 200, 'code-missing');
      const checked = await deps.factors.verify(session.subject, code, ctx.remoteAddress, 'sign_in_page');
      if (checked.outcome === 'throttled') return codePage(request, session.subject, id, ctx.browserId!, 429, 'too-many-codes', { 'Retry-After': String(checked.retryAfterSeconds) });
      if (checked.outcome === 'rejected') return codePage(request, session.subject, id, ctx.browserId!, 200, 'code-wrong');
      return given(ctx, id, interaction);
    },

    async passkey(form, ctx) {
      const found = await continued(form, ctx);
      if (!('session' in found)) return found;
      const { id, interaction, session } = found;
      const request = interaction.request;
      if (!live.liveClient(request)) return live.clientGone(request, ctx, id);
      const used = deps.passkeys && (await deps.passkeys.authenticate((form.get('response') ?? '').slice(0, 20_000), session.subject, 'sign_in_page'));
      if (!used) return codePage(request, session.subject, id, ctx.browserId!, 200, 'passkey-wrong');
      return given(ctx, id, interaction, [...used.amr, 'mfa']);
    },

    async enrol(form, ctx) {
      const found = await continued(form, ctx);
      if (!('session' in found)) return found;
      const { id, interaction, session } = found;
      const request = interaction.request;
      if (!live.liveClient(request)) return live.clientGone(request, ctx, id);
      const account = await deps.accountOf(session.subject);
      if (account === undefined) return pageMessage(400, 'start-again', request.uiLocales);
      const code = codeOf(form);
      if (code === '') return enrolmentPage(request, session.subject, account, id, ctx.browserId!, 200, 'code-missing');
      const checked = await deps.factors.confirmEnrolment(session.subject, code, ctx.remoteAddress, 'sign_in_page');
      if (checked.outcome === 'throttled') {
        const outcome = await enrolmentPage(request, session.subject, account, id, ctx.browserId!, 429, 'too-many-codes');
        return { ...outcome, headers: { 'Retry-After': String(checked.retryAfterSeconds) } };
      }
      if (checked.outcome === 'rejected') return enrolmentPage(request, session.subject, account, id, ctx.browserId!, 200, 'code-wrong');
      await deps.sessions.factorsGiven(ctx.browserId!, secondFactorMethods);
      return page(request, 200, { kind: 'recovery-codes', interaction: id, csrf: continuation.tokenFor(ctx.browserId!, id), codes: checked.recoveryCodes });
    },

    async next(form, ctx) {
      const found = await continued(form, ctx);
      if (!('session' in found)) return found;
      return given(ctx, found.id, found.interaction);
    },
  };
}
