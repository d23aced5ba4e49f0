/**
 * The built-in external sign-in (issue 34): the configured `identityProviders` served through
 * the host's one `ExternalSignIn` seam. `start` remembers what the provider's answer must match
 * (our own random `state` for the provider, the PKCE verifier, the `nonce`, the host's state)
 * in the store, so any node can take the answer; `callback` spends that record once, lets
 * openid-client judge the answer, applies the provider's claim mapping and conditions, and
 * finds or creates the local user (`upstream-accounts.ts`).
 *
 * Every failure comes back as `{ state, message, provider, reason }`: the host shows the sign-in
 * page again naming the provider. No code, token or ID token is ever logged; only the error's
 * code and the library's message (which names the failed check, not the value).
 */
import { randomBytes } from 'node:crypto';
import * as client from 'openid-client';
import type { ResolvedIdentityProvider, ResolvedUpstreamSignIn } from '../config/identity-providers.js';
import type { Clock, ExternalSignIn, ExternalSignInFailure, ExternalSignInResult, Logger } from '../sdk/contracts.js';
import type { EventService } from '../events/event-service.js';
import type { Store } from '../store/store.js';
import { createUpstreamClient, StrictAnswerError, type UpstreamChecks, type UpstreamClient } from './upstream-client.js';
import { localSubjectFor, type UpstreamAccounts, type UpstreamIdentity } from './upstream-accounts.js';
import { DisabledAccountError } from './stored-accounts.js';

export interface UpstreamSignInDeps {
  readonly config: ResolvedUpstreamSignIn;
  readonly accounts: UpstreamAccounts;
  readonly store: Pick<Store, 'add' | 'consume'>;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly events?: EventService | undefined;
  /** Seconds a person may spend at the provider. Default 600 (the interaction's own lifetime). */
  readonly lifetime?: number;
}

/** What `start` stores under the provider's `state`. */
interface Pending {
  readonly hostState: string;
  readonly provider: string;
  readonly callbackUrl: string;
  readonly codeVerifier: string;
  readonly nonce?: string | undefined;
}

const grantType = 'upstream_sign_in';
const keyOf = (state: string): string => `upstream:${state}`;
/** Ours are 43 base64url characters; anything else is not one of ours, and is not looked up. */
const stateShape = /^[A-Za-z0-9_-]{43}$/;

const texts: Record<ExternalSignInFailure, string> = {
  cancelled: 'The sign-in was cancelled.',
  refused: 'The identity provider refused the sign-in.',
  unavailable: 'The identity provider did not answer in time.',
  'invalid-answer': 'The identity provider\'s answer could not be trusted.',
  'not-allowed': 'This account may not sign in here.',
};

/** Sorts a failure by what the person should be told; the log gets the exact check. */
function reasonOf(err: unknown): ExternalSignInFailure {
  if (err instanceof client.AuthorizationResponseError) return err.error === 'access_denied' ? 'cancelled' : 'refused';
  if (err instanceof client.ResponseBodyError) return 'refused';
  const causes: unknown[] = [];
  for (let e: unknown = err; e !== undefined && causes.length < 5; e = (e as { cause?: unknown }).cause) causes.push(e);
  // fetch: a TypeError ("fetch failed") for a refused connection, a DOMException on the timeout.
  if (causes.some((e) => e instanceof TypeError || (e instanceof Error && (e.name === 'TimeoutError' || e.name === 'AbortError')))) return 'unavailable';
  if (err instanceof client.ClientError && (err.code === 'OAUTH_RESPONSE_IS_NOT_CONFORM' || err.code === 'OAUTH_RESPONSE_IS_NOT_JSON')) return 'unavailable';
  return 'invalid-answer';
}

function mapClaims(p: ResolvedIdentityProvider, upstream: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const mapped: Record<string, unknown> = {};
  for (const [from, to] of Object.entries(p.claimMapping)) {
    const value = upstream[from];
    if (value !== undefined && value !== null) mapped[to] = value;
  }
  return mapped;
}

export function createUpstreamSignIn(deps: UpstreamSignInDeps, clientFor: (p: ResolvedIdentityProvider) => UpstreamClient = createUpstreamClient): ExternalSignIn {
  const { config, clock, logger } = deps;
  const providers = new Map(config.identityProviders.map((p) => [p.name, { p, upstream: clientFor(p) }]));
  // The buttons' CSP `form-action` sources (`ExternalSignIn.providers`): the configured origin at
  // once, the discovered authorization endpoint's as soon as discovery answered (started here,
  // so a provider on another origin than its issuer works from the first click).
  const buttons = config.identityProviders.map((p) => ({
    name: p.name, displayName: p.displayName, formAction: new URL(p.authorizationUrl ?? p.issuer).origin, ...(p.domains.length > 0 ? { domains: p.domains } : {}),
  }));
  for (const button of buttons) {
    providers.get(button.name)!.upstream.authorizationOrigin().then((origin) => {
      button.formAction = origin;
    }, () => undefined); // down now: tried again at the first sign-in
  }
  const lifetime = (deps.lifetime ?? 600) * 1000;

  function failed(p: ResolvedIdentityProvider | undefined, hostState: string, reason: ExternalSignInFailure, detail: Record<string, unknown>): ExternalSignInResult {
    logger.info({ provider: p?.name, reason, ...detail }, 'upstream sign-in failed');
    deps.events?.raise({ type: 'user.sign_in_failed', via: `upstream:${p?.name ?? 'unknown'}`, reason });
    return { state: hostState, message: texts[reason], reason, ...(p ? { provider: p.displayName } : {}) };
  }

  /** The provider's conditions on who may sign in: a claim's value, an e-mail domain. */
  function refusal(p: ResolvedIdentityProvider, upstream: Readonly<Record<string, unknown>>, identity: UpstreamIdentity): string | undefined {
    if (p.requiredClaim && upstream[p.requiredClaim.name] !== p.requiredClaim.value) return `required claim "${p.requiredClaim.name}" missing or another value`;
    if (p.allowedEmailDomains) {
      const domain = identity.email?.slice(identity.email.lastIndexOf('@') + 1);
      if (domain === undefined || !p.allowedEmailDomains.includes(domain)) return 'e-mail domain not allowed';
    }
    return undefined;
  }

  return {
    providers: buttons,
    passwordForm: !config.upstreamSignIn.hidePasswordForm,

    async start(request) {
      const name = request.provider ?? (providers.size === 1 ? [...providers.keys()][0] : undefined);
      const found = name === undefined ? undefined : providers.get(name);
      if (!found) throw new Error(`no identity provider named ${JSON.stringify(name)}`);
      const state = randomBytes(32).toString('base64url');
      const checks: UpstreamChecks = {
        state,
        nonce: found.p.type === 'oidc' ? client.randomNonce() : undefined,
        codeVerifier: client.randomPKCECodeVerifier(),
      };
      // Built before anything is stored: discovery fails here when the provider is down.
      const url = await found.upstream.authorizationUrl(request.callbackUrl, checks, { loginHint: request.loginHint, uiLocales: request.uiLocales });
      const button = buttons.find((b) => b.name === found.p.name);
      if (button) button.formAction = url.origin;
      const pending: Pending = { hostState: request.state, provider: found.p.name, callbackUrl: request.callbackUrl, codeVerifier: checks.codeVerifier, nonce: checks.nonce };
      const now = clock.now();
      await deps.store.add({
        key: keyOf(state), type: grantType, clientId: request.clientId, subjectId: undefined, sessionId: undefined,
        createdAt: now, expiresAt: now + lifetime, consumedAt: undefined, data: JSON.stringify(pending),
      });
      return url.href;
    },

    async callback(params) {
      const state = params.get('state') ?? '';
      // Spent once: a replayed answer (or a second tab) finds nothing.
      const record = stateShape.test(state) ? await deps.store.consume(keyOf(state), clock.now()) : undefined;
      if (!record) return failed(undefined, '', 'invalid-answer', { detail: 'state unknown, expired or used' });
      const pending = JSON.parse(record.data) as Pending;
      const p = providers.get(pending.provider);
      if (!p) return failed(undefined, pending.hostState, 'invalid-answer', { detail: 'the provider is no longer configured' });
      const answerUrl = new URL(pending.callbackUrl);
      for (const [k, v] of params) answerUrl.searchParams.set(k, v);
      let answer;
      try {
        answer = await p.upstream.finish(answerUrl, { state, nonce: pending.nonce, codeVerifier: pending.codeVerifier });
      } catch (err) {
        const e = err as { code?: unknown; error?: unknown; name?: unknown; message?: unknown };
        return failed(p.p, pending.hostState, reasonOf(err), {
          error: typeof e.error === 'string' ? e.error.slice(0, 64) : undefined,
          code: typeof e.code === 'string' ? e.code : undefined,
          detail: err instanceof StrictAnswerError || err instanceof client.ClientError || err instanceof Error ? `${String(e.name)}: ${String(e.message).slice(0, 200)}` : undefined,
        });
      }
      const claims = mapClaims(p.p, answer.claims);
      const email = typeof claims.email === 'string' && claims.email.includes('@') ? claims.email.toLowerCase() : undefined;
      const identity: UpstreamIdentity = {
        provider: p.p.name, issuer: p.p.issuer, subject: answer.subject, claims, email, emailVerified: email !== undefined && claims.email_verified === true,
      };
      const refused = refusal(p.p, answer.claims, identity);
      if (refused) return failed(p.p, pending.hostState, 'not-allowed', { detail: refused });
      let local: Awaited<ReturnType<typeof localSubjectFor>>;
      try {
        local = await localSubjectFor(deps.accounts, identity, {
          linkByVerifiedEmail: config.upstreamSignIn.linkByVerifiedEmail, providerVerifiesEmail: p.p.trustEmailVerified,
        });
      } catch (err) {
        // A linked user an operator disabled (`svc users disable`) stays out, whichever door they use.
        if (err instanceof DisabledAccountError) return failed(p.p, pending.hostState, 'not-allowed', { detail: err.message });
        throw err;
      }
      logger.info({ provider: p.p.name, subject: local.subject, account: local.how }, 'upstream sign-in');
      // The ID token's `amr` only from a provider trusted to say it (`trustAmr`): it counts for our `acr`.
      const amr = p.p.type === 'oidc' && p.p.trustAmr && Array.isArray(answer.claims.amr) ? { amr: answer.claims.amr as string[] } : {};
      // Kept in our session only when we will sign out at the provider (RP-Initiated Logout §2's hint).
      const logout = p.p.logoutAtProvider && answer.idToken !== undefined && answer.idToken.length <= 8000 ? { logoutHint: `${p.p.name} ${answer.idToken}` } : {};
      return { state: pending.hostState, subject: local.subject, idp: p.p.name, ...amr, ...logout };
    },

    async endSession(logoutHint, back) {
      const space = logoutHint.indexOf(' ');
      const found = providers.get(logoutHint.slice(0, Math.max(0, space)));
      if (!found?.p.logoutAtProvider) return undefined;
      try {
        return (await found.upstream.endSessionUrl(logoutHint.slice(space + 1), back.postLogoutRedirectUri, back.state))?.href;
      } catch (err) {
        // Down or its discovery unreadable: our own logout goes on without it.
        logger.info({ provider: found.p.name, err: (err as Error).name }, 'upstream logout: the provider could not be reached');
        return undefined;
      }
    },
  };
}
