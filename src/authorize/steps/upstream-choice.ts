/**
 * Issue 34: an identity provider plugin (or the built-in `identityProviders`) that offers
 * several providers (`ExternalSignIn.providers`): the sign-in page with a button each, which
 * posts `step=upstream` with the chosen `provider`; the same page again after a provider failed,
 * naming it; and a request's `acr_values=idp:<name>` that goes to one at once. The buttons' form
 * is sent on to the provider after our redirect, so the page's CSP `form-action` lists the
 * providers' origins (`formTargets`).
 */
import type { Client } from '../../config/schema.js';
import type { ExternalSignIn } from '../../sdk/contracts.js';
import type { SignInView } from '../../pages/sign-in-views.js';
import type { AuthorizationRequest } from '../authorization-request.js';
import { clientName, languageOf, type FlowOutcome } from '../flow-outcome.js';
import type { InteractionCsrf } from './continued-interaction.js';

type SignInPageView = Extract<SignInView, { kind: 'sign-in' }>;
export type UpstreamFailure = NonNullable<SignInPageView['upstreamFailure']>;

export interface UpstreamChoice {
  /**
   * The provider the request goes to at once: the one its `acr_values=idp:<name>` names (an
   * explicit choice, so it wins), else the one whose `domains` hold its `login_hint`'s domain.
   */
  hinted(request: AuthorizationRequest): string | undefined;
  /** One of the offered providers, by name. */
  offered(name: string | undefined): { readonly name: string; readonly displayName: string } | undefined;
  /** Only the buttons are offered (`passwordForm: false`): a POSTed password is refused unread. */
  readonly passwordFormHidden: boolean;
  /** What a sign-in page's view and CSP need besides the form: the buttons and their targets. */
  pageParts(): { view: Pick<SignInPageView, 'providers' | 'passwordForm'>; formTargets?: readonly string[] };
  /** The sign-in page with the buttons, after a failure naming the provider; the interaction goes on. */
  page(request: AuthorizationRequest, client: Client, interactionId: string, browserId: string, failure?: UpstreamFailure): FlowOutcome;
}

/** `undefined` unless the plugin offers providers to choose from. */
export function createUpstreamChoice(deps: { external: ExternalSignIn | undefined; csrf: InteractionCsrf }): UpstreamChoice | undefined {
  const { external } = deps;
  if (!external?.providers) return undefined;
  const providers = external.providers;
  const parts: UpstreamChoice['pageParts'] = () => {
    // Read at every render: a provider's discovered authorization origin arrives late.
    const targets = new Set(providers.flatMap((p) => (p.formAction ? [p.formAction] : [])));
    return { view: { providers, passwordForm: external.passwordForm !== false }, ...(targets.size > 0 ? { formTargets: [...targets] } : {}) };
  };
  const names = new Set(providers.map((p) => p.name));
  const byDomain = new Map(providers.flatMap((p) => (p.domains ?? []).map((d) => [d.toLowerCase(), p.name] as const)));
  return {
    hinted(request) {
      // IdentityServer's `idp:<name>` convention; OIDC Core §3.1.2.1 leaves `acr_values` to the deployment.
      const named = request.acrValues?.split(' ').map((v) => (v.startsWith('idp:') ? v.slice(4) : '')).find((n) => names.has(n));
      if (named !== undefined || byDomain.size === 0) return named;
      // OIDC Core §3.1.2.1: `login_hint` is often an e-mail address; its domain says whose people it names.
      const hint = request.loginHint;
      const at = hint?.lastIndexOf('@') ?? -1;
      return at < 0 ? undefined : byDomain.get(hint!.slice(at + 1).toLowerCase());
    },
    offered: (name) => providers.find((p) => p.name === name),
    passwordFormHidden: external.passwordForm === false,
    pageParts: parts,
    page(request, client, id, browserId, failure) {
      const { view, formTargets } = parts();
      return {
        status: 200, redirectUri: request.redirectUri, ...languageOf(request), ...(formTargets ? { formTargets } : {}),
        view: {
          kind: 'sign-in', interaction: id, csrf: deps.csrf.tokenFor(browserId, id), clientId: client.clientId, clientName: clientName(client),
          username: request.loginHint, ...view, ...(failure ? { upstreamFailure: failure } : {}),
        },
      };
    },
  };
}
