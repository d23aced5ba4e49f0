/**
 * Signing in with a passkey alone (issue 35, passwordless): the sign-in page offers it beside
 * the password form (`secondFactor.passkeys`), the browser asks for a discoverable credential,
 * and its assertion (with user verification: the device's PIN or biometrics) names the user.
 * Possession of the key and the verification together are two factors (RFC 8176 `mfa`).
 */
import type { EventService } from '../../events/event-service.js';
import type { PasskeyService } from '../../second-factor/passkeys.js';
import { clientName, languageOf } from '../flow-outcome.js';
import { isContinued, type InteractionContinuation } from './continued-interaction.js';
import type { InteractionHandler } from './flow-step.js';
import type { LiveClients } from './live-client.js';
import type { SignedIn } from './signed-in.js';

/** The sign-in page's passkey options, a fresh challenge each time it is shown. */
export type PasskeyOptions = () => Promise<string>;

export function createPasskeySignIn(deps: {
  passkeys: PasskeyService;
  /** Whether the subject is a user the database keeps who may sign in (enabled). */
  canSignIn(subject: string): Promise<boolean>;
  continuation: InteractionContinuation;
  live: LiveClients;
  signedIn: SignedIn;
  events?: EventService | undefined;
}): { readonly options: PasskeyOptions; readonly submit: InteractionHandler } {
  const options: PasskeyOptions = async () => JSON.stringify(await deps.passkeys.authenticationOptions(undefined));
  return {
    options,
    async submit(form, ctx) {
      const found = await deps.continuation.continued(form, ctx);
      if (!isContinued(found)) return found;
      const { id, interaction } = found;
      const request = interaction.request;
      const client = deps.live.liveClient(request);
      if (!client) return deps.live.clientGone(request, ctx, id);
      const used = await deps.passkeys.authenticate((form.get('response') ?? '').slice(0, 20_000), undefined, 'sign_in_page');
      if (!used || !(await deps.canSignIn(used.subject))) {
        deps.events?.raise({ type: 'user.sign_in_failed', via: 'passkey', reason: used ? 'user disabled or gone' : 'passkey not accepted' }, ctx.requestId);
        return {
          status: 200, redirectUri: request.redirectUri, ...languageOf(request),
          view: {
            kind: 'sign-in', interaction: id, csrf: deps.continuation.tokenFor(ctx.browserId!, id), clientId: client.clientId, clientName: clientName(client),
            notice: 'passkey-failed', passkeyOptions: await options(),
          },
        };
      }
      return deps.signedIn(used.subject, ctx, id, interaction, 'passkey', [...used.amr, ...(used.amr.includes('user') ? ['mfa'] : [])]);
    },
  };
}
