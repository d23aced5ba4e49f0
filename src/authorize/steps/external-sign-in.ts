/**
 * Signing in at a plugin's identity provider (`ExternalSignIn`), in place of the form: the
 * redirect there (a `SignInMethod`), and its answer at the callback route. The `state` it must
 * bring back names the interaction and carries the CSRF token bound to this browser, so an
 * answer arriving in another browser (login CSRF) signs nobody in.
 */
import type { EventService } from '../../events/event-service.js';
import type { ExternalSignIn as ExternalSignInPlugin, Logger } from '../../sdk/contracts.js';
import { clientName, languageOf, pageMessage } from '../flow-outcome.js';
import type { Interactions } from '../interactions.js';
import { isContinued, type InteractionContinuation } from './continued-interaction.js';
import type { InteractionHandler } from './flow-step.js';
import type { LiveClients } from './live-client.js';
import type { SignedIn } from './signed-in.js';
import type { SignInMethod } from './sign-in-step.js';

export interface ExternalSignIn extends SignInMethod {
  /** GET/POST of the callback route (`paths.signInCallback`): the identity provider's answer. */
  readonly callback: InteractionHandler;
}

export function createExternalSignIn(deps: {
  external: ExternalSignInPlugin;
  /** The absolute URL of the callback route. */
  callbackUrl: string;
  continuation: InteractionContinuation;
  interactions: Pick<Interactions, 'finish'>;
  live: LiveClients;
  signedIn: SignedIn;
  logger: Logger;
  events?: EventService | undefined;
}): ExternalSignIn {
  const { external, continuation, interactions, live } = deps;
  return {
    async start(state, id, browserId) {
      const { client, request } = state;
      const location = await external.start({
        state: `${id}.${continuation.tokenFor(browserId, id)}`, callbackUrl: deps.callbackUrl,
        clientId: client.clientId, clientName: clientName(client), loginHint: request.loginHint, uiLocales: request.uiLocales,
      });
      let url: URL;
      try {
        url = new URL(location);
      } catch {
        throw new Error('externalSignIn.start returned no absolute URL');
      }
      if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error('externalSignIn.start returned a URL that is not http(s)');
      return { status: 200, response: { kind: 'redirect', location: url.href }, ...languageOf(request) };
    },

    async callback(params, ctx) {
      const result = (await external.callback(params, { remoteAddress: ctx.remoteAddress })) as Partial<Record<'state' | 'subject' | 'message', unknown>> | null;
      const state = typeof result?.state === 'string' ? result.state : '';
      const dot = state.indexOf('.');
      const found = await continuation.continued(new Map([['interaction', state.slice(0, Math.max(0, dot))], ['csrf', state.slice(dot + 1)]]), ctx);
      if (!isContinued(found)) return found;
      if (!live.liveClient(found.interaction.request)) return live.clientGone(found.interaction.request, ctx, found.id);
      if (typeof result?.subject !== 'string' || result.subject === '') {
        deps.logger.info({ reqId: ctx.requestId }, 'external sign-in: the identity provider answered without a subject');
        deps.events?.raise({ type: 'user.sign_in_failed', via: 'external', reason: 'rejected by the identity provider' }, ctx.requestId);
        await interactions.finish(found.id);
        return { ...pageMessage(400, 'external-sign-in-failed'), ...languageOf(found.interaction.request) };
      }
      return deps.signedIn(result.subject, ctx, found.id, found.interaction, 'external');
    },
  };
}
