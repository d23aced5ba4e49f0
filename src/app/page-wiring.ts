/**
 * The pages' share of the composition root (`container.ts`): what the sign-in pages and the
 * device page run, built here and handed to their Koa adapters (`src/http/pages/`), which build
 * nothing themselves. Both are built on the first request that needs them, from the parts every
 * page shares (`pages/page-parts.ts`); a failure to build is retried on the next request.
 */
import type { SecondFactorService } from '../second-factor/second-factors.js';
import type { PasskeyService } from '../second-factor/passkeys.js';
import type { ResolvedConfig } from '../config/schema.js';
import type { EventService } from '../events/event-service.js';
import type { Clock, ExternalSignIn, Logger, ResourceOwnerValidator, SignInPage } from '../sdk/contracts.js';
import type { Client, LocalizedText } from '../sdk/model.js';
import type { ScopeDescriptions } from '../pages/device-views.js';
import type { Store } from '../store/store.js';
import type { Lookup } from '../clients/client-directory.js';
import type { ScopeCatalog } from '../oauth/scopes.js';
import type { KeyRing } from '../oauth/keys/key-ring.js';
import type { PasswordThrottle } from '../throttling/password-throttle.js';
import type { FailedAttempts } from '../throttling/failed-attempts.js';
import type { LoadPageParts } from '../pages/page-parts.js';
import { paths } from '../endpoints/urls.js';
import type { ResourceCatalog } from '../oauth/resources.js';
import { createRequestValidator, type RequestValidator } from '../authorize/authorization-request.js';
import { createAuthorizationCodes } from '../authorize/authorization-codes.js';
import type { FamilyFormat } from '../oauth/grant-family.js';
import { createInteractions } from '../authorize/interactions.js';
import type { InteractionLimit } from '../authorize/interaction-limit.js';
import type { PushedRequests } from '../authorize/pushed-requests.js';
import { createAuthorizeFlow, type AuthorizeFlowDeps } from '../authorize/authorize-flow.js';
import type { ResponseSealer } from '../authorize/jarm.js';
import { createRequestObjectReader, type RequestObjectDeps } from '../authorize/request-object.js';
import { createEndSession, createEndSessionReturn } from '../authorize/end-session.js';
import { createUpstreamLogout } from '../authorize/upstream-logout.js';
import type { BackChannelLogout } from '../authorize/back-channel-logout.js';
import { readIdTokenHint } from '../authorize/id-token-hint.js';
import { createDeviceFlowStore } from '../device/device-flow-store.js';
import { userCodeScheme } from '../device/user-code.js';
import { createVerificationPage } from '../device/verification-page.js';
import type { LoadSignInParts, SignInParts } from '../http/pages/sign-in-pages.js';
import type { LoadVerificationPage } from '../http/pages/device-page.js';

/**
 * The configured scope descriptions, for consent on both flows' pages; a scope without one is
 * worded by the page text catalogue in each language.
 */
export function scopeDescriptionsOf(config: Pick<ResolvedConfig, 'identityResources' | 'apiScopes'>): ScopeDescriptions {
  const descriptions = new Map<string, LocalizedText | undefined>();
  for (const r of config.identityResources) descriptions.set(r.name, r.descriptions ?? r.description);
  for (const s of config.apiScopes) descriptions.set(s.name, s.descriptions ?? s.description);
  return descriptions;
}

/**
 * ISSUE 34: the sign-in page with the upstream providers' external sign-in added (a plugin's
 * own `externalSignIn` and `identityProviders` together stop start-up, `registerPluginContributions`).
 */
export function withUpstreamSignIn(page: SignInPage | undefined, upstream: ExternalSignIn | undefined): SignInPage | undefined {
  if (!upstream) return page;
  return page ? Object.assign(Object.create(page) as SignInPage, { externalSignIn: upstream }) : { externalSignIn: upstream };
}

/**
 * The authorization request's checks, shared by the authorization endpoint and PAR (RFC 9126 §2.1).
 * Signed request objects (RFC 9101) are read when a plugin can verify client signatures; `resource`
 * (RFC 8707) names the APIs of `resources`.
 */
export function authorizationRequestsOf(clients: Lookup<Client>, scopeCatalog: ScopeCatalog, requestObjects?: RequestObjectDeps, resources?: ResourceCatalog): RequestValidator {
  return createRequestValidator({
    clients, scopeCatalog,
    ...(requestObjects && requestObjects.verifiers.length > 0 ? { requestObjects: createRequestObjectReader(requestObjects) } : {}),
    requireRequestObjects: requestObjects?.config.requestObjects.required,
    ...(resources ? { resources } : {}),
  });
}

/** What the sign-in pages and the device verification page both take: a person signs in on each. */
export interface PageWiring {
  config: ResolvedConfig;
  clients: Lookup<Client>;
  store: Store;
  clock: Clock;
  logger: Logger;
  events?: EventService | undefined;
  resourceOwnerValidator: ResourceOwnerValidator;
  scopeDescriptions: ScopeDescriptions;
  passwordThrottle: PasswordThrottle;
  pageParts: LoadPageParts;
}

export interface SignInWiring extends PageWiring {
  /** The grant-family format the codes' tokens get (`familyFormatOf`, src/oauth/grant-family.ts). */
  families: FamilyFormat;
  keyRing: Pick<KeyRing, 'verificationKey'>;
  validator: RequestValidator;
  pushed: PushedRequests;
  /** A plugin's sign-in page in place of the built-in one. */
  customPage?: SignInPage | undefined;
  interactionLimit?: InteractionLimit | undefined;
  /** Back-Channel Logout 1.0, when logout ends a session. */
  backChannelLogout?: BackChannelLogout | undefined;
  /** Issue 36: `ClientDirectory.prepare`, for clients named by their metadata document. */
  prepareClient?: ((clientId: string | undefined) => Promise<string | undefined>) | undefined;
  /** JARM: signs responses in the `*.jwt` modes (`createJarm`). */
  sealResponse?: ResponseSealer | undefined;
  /** Issue 35: the second step of a sign-in. */
  secondFactors?: AuthorizeFlowDeps['secondFactors'];
}

/** The authorize flow and logout, over the parts every page shares. */
export function signInPartsLoader(deps: SignInWiring): LoadSignInParts {
  const { config, clients, store, clock, logger, events } = deps;
  // OIDC Core §3.1.2.1 and RP-Initiated Logout §2: `id_token_hint` is read with our own keys.
  const readHint = (token: string) => readIdTokenHint(token, config.issuer, deps.keyRing, config.signing.idTokenAlgorithms);
  let parts: Promise<SignInParts> | undefined;
  return function signInParts() {
    parts ??= deps.pageParts().then(({ cookies, csrf, sessions }) => {
      const flow = createAuthorizeFlow({
        backChannelLogout: deps.backChannelLogout,
        sealResponse: deps.sealResponse,
        config, clients, validator: deps.validator, sessions, csrf, scopeDescriptions: deps.scopeDescriptions, clock, logger, events,
        interactions: createInteractions({ store, clock, limit: deps.interactionLimit }),
        codes: createAuthorizationCodes({ store, clock, families: deps.families }),
        pushed: deps.pushed,
        users: deps.resourceOwnerValidator,
        passwordThrottle: deps.passwordThrottle,
        authenticate: deps.customPage?.authenticate?.bind(deps.customPage),
        external: deps.customPage?.externalSignIn,
        callbackUrl: config.issuer + paths.signInCallback,
        newBrowserId: cookies.newId,
        readHint,
        prepareClient: deps.prepareClient,
        secondFactors: deps.secondFactors,
      });
      const external = deps.customPage?.externalSignIn;
      const upstreamLogout = external?.endSession
        ? createUpstreamLogout({ external, store, callbackUrl: config.issuer + paths.endSessionCallback, clock, logger })
        : undefined;
      const endSession = createEndSession({ config, clients, sessions, csrf, logger, events, readHint, backChannelLogout: deps.backChannelLogout, upstreamLogout });
      return { cookies, csrf, sessions, flow, endSession, endSessionReturn: createEndSessionReturn(upstreamLogout) };
    });
    parts.catch(() => {
      parts = undefined;
    });
    return parts;
  };
}

export interface DeviceWiring extends PageWiring {
  /** Wrong user codes, counted where N nodes share the limit (`throttling/counters.ts`). */
  failedAttempts: FailedAttempts;
  /** Issue 35: one-time codes at the device page's sign-in. */
  secondFactors?: SecondFactorService | undefined;
  /** Issue 35, with `secondFactor.passkeys`: passwordless passkey sign-in on the device page. */
  passkeys?: PasskeyService | undefined;
}

/** The verification page's steps (RFC 8628 §3.3), over the parts every page shares. */
export function verificationPageLoader(deps: DeviceWiring): LoadVerificationPage {
  const { config, store, clock } = deps;
  const userCodes = userCodeScheme(config.deviceFlow.userCodeFormat);
  const flows = createDeviceFlowStore({ store, clock });
  let loaded: ReturnType<LoadVerificationPage> | undefined;
  return function verificationPage() {
    loaded ??= deps.pageParts().then((parts) => ({
      parts,
      page: createVerificationPage({
        flows,
        userCodes,
        failedAttempts: deps.failedAttempts,
        passwordThrottle: deps.passwordThrottle,
        csrf: parts.csrf,
        sessions: parts.sessions,
        newBrowserId: parts.cookies.newId,
        users: deps.resourceOwnerValidator,
        clients: deps.clients,
        scopeDescriptions: deps.scopeDescriptions,
        clock,
        logger: deps.logger,
        events: deps.events,
        secondFactors: deps.secondFactors,
        passkeys: deps.passkeys,
        mfaScopes: new Set(config.apiResources.filter((api) => api.requiredAcr === 'mfa').flatMap((api) => api.scopes)),
      }),
    }));
    loaded.catch(() => {
      loaded = undefined;
    });
    return loaded;
  };
}
