/**
 * The interaction a page's POST continues. Its CSRF token is bound to the browser's cookie and
 * the interaction id, so a form posted from another browser (or a stale tab of another
 * interaction) continues nothing.
 */
import type { Logger } from '../../sdk/contracts.js';
import type { Csrf } from '../../pages/csrf.js';
import { pageMessage, type BrowserContext, type FlowOutcome } from '../flow-outcome.js';
import type { Interaction, Interactions } from '../interactions.js';

export interface InteractionCsrf {
  /** The token a page of this interaction carries for this browser. */
  tokenFor(browserId: string, interactionId: string): string;
}

export type ContinuedInteraction = { readonly id: string; readonly interaction: Interaction };

export interface InteractionContinuation extends InteractionCsrf {
  /** The interaction, or the start-again page when the token does not fit or the interaction is gone. */
  continued(form: ReadonlyMap<string, string>, ctx: BrowserContext): Promise<ContinuedInteraction | FlowOutcome>;
}

export const isContinued = (value: ContinuedInteraction | FlowOutcome): value is ContinuedInteraction => 'interaction' in value;

export function createInteractionContinuation(deps: { csrf: Csrf; interactions: Pick<Interactions, 'get'>; logger: Logger }): InteractionContinuation {
  return {
    tokenFor: (browserId, interactionId) => deps.csrf.tokenFor(`${browserId}:${interactionId}`),
    async continued(form, ctx) {
      const id = form.get('interaction') ?? '';
      const token = form.get('csrf');
      if (ctx.browserId === undefined || !deps.csrf.verify(`${ctx.browserId}:${id}`, token)) {
        deps.logger.info({ reqId: ctx.requestId }, 'sign-in page: CSRF token missing or not for this browser');
        return pageMessage(400, 'start-again');
      }
      const interaction = await deps.interactions.get(id);
      if (!interaction) return pageMessage(400, 'start-again');
      return { id, interaction };
    },
  };
}
