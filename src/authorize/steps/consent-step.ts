/**
 * The consent step: must the person approve this client's scopes (`consent-policy.ts`)? Then the
 * consent page, or `consent_required` for `prompt=none` (OIDC Core §3.1.2.6). Its POST records the
 * decision: a denial is `access_denied` at the redirect URI (RFC 6749 §4.1.2.1), an approval is
 * remembered in the session and the request goes on.
 */
import type { EventService } from '../../events/event-service.js';
import type { ResourceOwnerValidator } from '../../sdk/contracts.js';
import { AccessDenied, OAuthError } from '../../oauth/errors.js';
import type { ScopeDescriptions, ScopeLine } from '../../pages/device-views.js';
import type { SignInSessions } from '../../sessions/sign-in-sessions.js';
import { isSelfRegistered, isUnprovableNativeClient, needsConsent, redirectTargetOf } from '../consent-policy.js';
import { clientName, languageOf, redirectError } from '../flow-outcome.js';
import type { Interaction, Interactions } from '../interactions.js';
import { isContinued, type InteractionContinuation } from './continued-interaction.js';
import { signedInSession, withNewCookie, type FlowStep, type InteractionHandler, type Proceed } from './flow-step.js';
import type { LiveClients } from './live-client.js';

export interface ConsentStep extends FlowStep {
  /** POST of the consent page (`step=consent`). */
  readonly submit: InteractionHandler;
}

export function createConsentStep(deps: {
  issuer: string;
  users: Pick<ResourceOwnerValidator, 'findBySubject'>;
  scopeDescriptions: ScopeDescriptions;
  sessions: Pick<SignInSessions, 'get' | 'consentGiven'>;
  interactions: Pick<Interactions, 'start' | 'finish'>;
  continuation: InteractionContinuation;
  live: LiveClients;
  proceed: Proceed;
  events?: EventService | undefined;
}): ConsentStep {
  const { continuation, interactions, live } = deps;
  const scopeLines = (scopes: readonly string[]): ScopeLine[] => scopes.map((name) => ({ name, description: deps.scopeDescriptions.get(name) }));

  return {
    name: 'consent',
    async run(state) {
      const { request, client, ctx } = state;
      const session = signedInSession(state, 'consent');
      if (!needsConsent(request, client, { remembered: session.consents[client.clientId] ?? [], approvedNow: state.interaction?.consented === true })) return undefined;
      if (request.prompt.includes('none')) return withNewCookie(state, redirectError(deps.issuer, request, new OAuthError('consent_required', 'The user must consent.')));
      const id = state.interactionId ?? (await interactions.start(request, ctx.remoteAddress));
      const user = await deps.users.findBySubject(session.subject);
      const unverified = isSelfRegistered(client);
      const showTarget = unverified || isUnprovableNativeClient(client, request.redirectUri);
      return withNewCookie(state, {
        status: 200,
        redirectUri: request.redirectUri,
        ...languageOf(request),
        view: {
          kind: 'consent', interaction: id, csrf: continuation.tokenFor(state.browserId!, id), clientId: client.clientId, clientName: clientName(client), scopes: scopeLines(request.scopes), resources: request.resources,
          username: user?.username ?? session.subject, unverified, returnTo: showTarget ? redirectTargetOf(request.redirectUri) : undefined,
        },
      });
    },

    async submit(form, ctx) {
      const found = await continuation.continued(form, ctx);
      if (!isContinued(found)) return found;
      const { id, interaction } = found;
      const request = interaction.request;
      // Not even a denial goes to the redirect URI of a client that is gone.
      if (!live.liveClient(request)) return live.clientGone(request, ctx, id);
      const session = await deps.sessions.get(ctx.browserId!);
      if (!session) return deps.proceed(request, ctx, id, interaction);
      const decision = form.get('decision');
      if (decision === 'deny') {
        await interactions.finish(id);
        deps.events?.raise({ type: 'consent.denied', clientId: request.clientId, subject: session.subject }, ctx.requestId);
        return redirectError(deps.issuer, request, new AccessDenied('The user denied the request.'));
      }
      if (decision !== 'approve') return deps.proceed(request, ctx, id, interaction);
      await deps.sessions.consentGiven(ctx.browserId!, request.clientId, request.scopes);
      deps.events?.raise({ type: 'consent.given', clientId: request.clientId, subject: session.subject, scopes: request.scopes }, ctx.requestId);
      const next: Interaction = { ...interaction, consented: true };
      return deps.proceed(request, ctx, id, next);
    },
  };
}
