/**
 * Signing in at a plugin's identity provider (`ExternalSignIn`), in place of the form: the
 * redirect there (a `SignInMethod`), and its answer at the callback route. The `state` it must
 * bring back names the interaction and carries the CSRF token bound to this browser, so an
 * answer arriving in another browser (login CSRF) signs nobody in. A plugin offering several
 * providers (issue 34, `upstream-choice.ts`) gets the sign-in page with a button each first,
 * unless `acr_values=idp:<name>` names one; a provider's failure shows that page again.
 */
import type { EventService } from '../../events/event-service.js';
import type { ExternalSignIn as ExternalSignInPlugin, ExternalSignInFailure, Logger } from '../../sdk/contracts.js';
import type { Client } from '../../config/schema.js';
import type { AuthorizationRequest } from '../authorization-request.js';
import { clientName, languageOf, pageMessage, type FlowOutcome } from '../flow-outcome.js';
import type { Interactions } from '../interactions.js';
import { isContinued, type InteractionContinuation } from './continued-interaction.js';
import type { InteractionHandler } from './flow-step.js';
import type { LiveClients } from './live-client.js';
import type { SignedIn } from './signed-in.js';
import type { SignInMethod } from './sign-in-step.js';
import type { UpstreamChoice } from './upstream-choice.js';
import { methodsOf } from './sign-in-form.js';

const idpName = /^[\w.:-]{1,64}$/;
const failureReasons: ReadonlySet<ExternalSignInFailure> = new Set<ExternalSignInFailure>(['cancelled', 'refused', 'unavailable', 'invalid-answer', 'not-allowed']);

export interface ExternalSignIn extends SignInMethod {
  /** GET/POST of the callback route (`paths.signInCallback`): the identity provider's answer. */
  readonly callback: InteractionHandler;
  /** Issue 34: POST of a provider's button on the sign-in page (`step=upstream`); only when the plugin offers providers. */
  readonly choose?: InteractionHandler | undefined;
}

export function createExternalSignIn(deps: {
  external: ExternalSignInPlugin;
  /** The providers to choose from, when the plugin offers several (`createUpstreamChoice`). */
  choice?: UpstreamChoice | undefined;
  /** The absolute URL of the callback route. */
  callbackUrl: string;
  continuation: InteractionContinuation;
  interactions: Pick<Interactions, 'finish'>;
  live: LiveClients;
  signedIn: SignedIn;
  logger: Logger;
  events?: EventService | undefined;
}): ExternalSignIn {
  const { external, continuation, interactions, live, choice } = deps;

  /** The redirect to the identity provider (with `provider`: the chosen one of several). */
  async function redirect(request: AuthorizationRequest, client: Client, id: string, browserId: string, provider?: string): Promise<FlowOutcome> {
    let location: string;
    try {
      location = await external.start({
        state: `${id}.${continuation.tokenFor(browserId, id)}`, callbackUrl: deps.callbackUrl,
        clientId: client.clientId, clientName: clientName(client), loginHint: request.loginHint, uiLocales: request.uiLocales,
        ...(provider === undefined ? {} : { provider }),
      });
    } catch (err) {
      // Issue 34: a chosen provider that cannot be reached (its discovery document) is the page naming it.
      const chosen = choice?.offered(provider);
      if (!chosen) throw err;
      deps.logger.info({ err, provider }, 'external sign-in: the identity provider could not be reached');
      deps.events?.raise({ type: 'user.sign_in_failed', via: `upstream:${chosen.name}`, reason: 'unavailable' });
      return choice!.page(request, client, id, browserId, { provider: chosen.displayName, reason: 'unavailable', message: '' });
    }
    let url: URL;
    try {
      url = new URL(location);
    } catch {
      throw new Error('externalSignIn.start returned no absolute URL');
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error('externalSignIn.start returned a URL that is not http(s)');
    return { status: 200, response: { kind: 'redirect', location: url.href }, ...languageOf(request) };
  }

  return {
    async start(state, id, browserId) {
      const { client, request } = state;
      if (!choice) return redirect(request, client, id, browserId);
      // Several providers: the page offers a button each, unless `acr_values` names one.
      const hinted = choice.hinted(request);
      return hinted ? redirect(request, client, id, browserId, hinted) : choice.page(request, client, id, browserId);
    },

    ...(choice ? {
      async choose(form, ctx) {
        const found = await continuation.continued(form, ctx);
        if (!isContinued(found)) return found;
        const request = found.interaction.request;
        const client = live.liveClient(request);
        if (!client) return live.clientGone(request, ctx, found.id);
        const provider = form.get('provider');
        if (!choice.offered(provider)) return pageMessage(400, 'start-again', request.uiLocales);
        return redirect(request, client, found.id, ctx.browserId!, provider);
      },
    } satisfies Pick<ExternalSignIn, 'choose'> : {}),

    async callback(params, ctx) {
      const result = (await external.callback(params, { remoteAddress: ctx.remoteAddress })) as Partial<Record<'state' | 'subject' | 'message' | 'provider' | 'reason' | 'amr' | 'idp' | 'logoutHint', unknown>> | null;
      const state = typeof result?.state === 'string' ? result.state : '';
      const dot = state.indexOf('.');
      const found = await continuation.continued(new Map([['interaction', state.slice(0, Math.max(0, dot))], ['csrf', state.slice(dot + 1)]]), ctx);
      if (!isContinued(found)) return found;
      const client = live.liveClient(found.interaction.request);
      if (!client) return live.clientGone(found.interaction.request, ctx, found.id);
      const failed = typeof result?.subject !== 'string' || result.subject === '';
      // Issue 34: a provider's failure (it raised its own event) shows the choice again, naming it.
      if (failed && choice && typeof result?.provider === 'string') {
        return choice.page(found.interaction.request, client, found.id, ctx.browserId!, {
          // Only a reason the page has words for; else the plugin's own message is shown.
          provider: result.provider, reason: failureReasons.has(result.reason as ExternalSignInFailure) ? result.reason as ExternalSignInFailure : undefined,
          message: typeof result.message === 'string' ? result.message.slice(0, 500) : '',
        });
      }
      if (failed) {
        deps.logger.info({ reqId: ctx.requestId }, 'external sign-in: the identity provider answered without a subject');
        deps.events?.raise({ type: 'user.sign_in_failed', via: 'external', reason: 'rejected by the identity provider' }, ctx.requestId);
        await interactions.finish(found.id);
        return { ...pageMessage(400, 'external-sign-in-failed'), ...languageOf(found.interaction.request) };
      }
      // Issue 34: `external` first (IdentityServer's value; RFC 8176 registers none for a federated
      // sign-in), then what the plugin says the provider did; `idp` names the provider.
      const amr = ['external', ...(methodsOf(result!.amr) ?? []).filter((m) => m !== 'external')];
      const idp = typeof result!.idp === 'string' && idpName.test(result!.idp) ? result!.idp : undefined;
      const logoutHint = typeof result!.logoutHint === 'string' && result!.logoutHint.length <= 8192 ? result!.logoutHint : undefined;
      return deps.signedIn(result!.subject as string, ctx, found.id, found.interaction, 'external', amr, idp, logoutHint);
    },
  };
}
