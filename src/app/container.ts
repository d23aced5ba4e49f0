/**
 * The composition root: the one awilix container of an app, strict mode on (awilix README,
 * "Strict mode"), every host service a lazy singleton registered here and nowhere else.
 *
 * Each registration names what its factory takes from the cradle and hands the factory a plain
 * object, so the cradle never leaves this file: services keep their small deps types (unit
 * tests call them with plain objects), and plugins get only the frozen `PluginDependencies` the
 * plugin registrar builds, never the container.
 *
 * The inputs (config, root logger, clock, the opened store) are values. Five more exist only
 * after an awaited start-up step, so `create-app.ts` registers them when it has them: `keyRing`
 * and `pageSecret` (loaded from the store), then, once the plugins are built, `registry`,
 * `resourceOwnerValidator` and `customSignInPage` (see `registerPluginContributions`). A service
 * resolved before a value it needs is registered fails start-up (strict resolution), rather
 * than being built with the wrong user store.
 */
import { asFunction, asValue, createContainer, InjectionMode, type AwilixContainer } from 'awilix';
import type Router from '@koa/router';
import type { ResolvedConfig, SigningAlgorithm } from '../config/schema.js';
import type { Clock, EndpointUrls, Plugin, ResourceOwnerValidator, SignInPage, TokenValidator } from '../sdk/contracts.js';
import type { AppLogger } from '../log/logger.js';
import { switchableLogger, type SwitchableLogger } from '../log/switchable-logger.js';
import type { Store } from '../store/store.js';
import { tracingOff, type Tracing } from '../tracing/tracing.js';
import { createCounters, type Counters } from '../throttling/counters.js';
import type { KeyRing } from '../oauth/keys/key-ring.js';
import { createEventService, type EventService } from '../events/event-service.js';
import { logEvents } from '../events/index.js';
import { endpointUrls, paths } from '../endpoints/urls.js';
import { receivesClientCertificates } from '../config/tls-material.js';
import { createTokenValidator } from '../oauth/token-validator.js';
import { createConfigUserValidator } from '../oauth/config-user-validator.js';
import { builtInUsers } from '../users/built-in-users.js';
import { createDatabaseUsers } from '../users/database-users.js';
import { scryptCostOf } from '../config/password-format.js';
import { createRefreshTokenService, type RefreshTokenService } from '../oauth/refresh-tokens.js';
import { createIdTokenIssuer, type IdTokenIssuer } from '../oauth/id-token-issuer.js';
import { createTokenIssuer, type TokenIssuer } from '../oauth/token-issuer.js';
import { watchContracts, type WatchedContracts } from '../store/watched-contracts.js';
import { familyFormatOf, type FamilyFormat } from '../oauth/grant-family.js';
import { createClientAuthenticator, type ClientAuthenticator } from '../client-authentication/client-authenticator.js';
import { certificateBinding } from '../sender-binding/certificate-binding.js';
import { createClientDirectory, type ClientDirectory } from '../clients/client-directory.js';
import { createMetadataDocuments } from '../clients/metadata-document/metadata-documents.js';
import { createEntryChecker } from '../clients/check-entry.js';
import { databaseClientStore } from '../clients/database-client-store.js';
import { createClientAdmin } from '../clients/client-admin.js';
import { createRegistrationEndpoint } from '../endpoints/registration.js';
import { createRegistrationTokens } from '../clients/registration/registration-tokens.js';
import { createRegistrationTokenThrottle } from '../throttling/registration-token-throttle.js';
import { createOpenRegistrationLimit } from '../throttling/open-registration-limit.js';
import { createAuthThrottle } from '../throttling/auth-throttle.js';
import { createPasswordThrottle, type PasswordThrottle } from '../throttling/password-throttle.js';
import { memoryWindowLimit } from '../throttling/rate-limits.js';
import type { ScopeCatalog } from '../oauth/scopes.js';
import { buildParameterTable, hostParameters, type ParameterTable } from '../oauth/form-params.js';
import { createPluginRegistrar, describedClientFields, type PluginRegistry } from '../plugin-host/plugin-registry.js';
import { standardGrants } from '../grants/index.js';
import { discoveryDocument } from '../endpoints/discovery.js';
import { createResourceCatalog, type ResourceCatalog } from '../oauth/resources.js';
import { createTokenEndpoint } from '../endpoints/token.js';
import { createIntrospectionEndpoint } from '../endpoints/introspection.js';
import { createRevocationEndpoint } from '../endpoints/revocation.js';
import { createDeviceAuthorizationEndpoint } from '../endpoints/device-authorization.js';
import { createUserInfoEndpoint } from '../endpoints/userinfo.js';
import { createParEndpoint } from '../endpoints/par.js';
import { userCodeScheme } from '../device/user-code.js';
import { createDevicePage } from '../http/pages/device-page.js';
import type { Middleware } from 'koa';
import { createFailedAttempts } from '../throttling/failed-attempts.js';
import { createIntrospectionSigner } from '../endpoints/introspection-jwt.js';
import { createBackChannelLogout, type BackChannelLogout } from '../authorize/back-channel-logout.js';
import { createLogoutTokenSender } from '../authorize/logout-token-sender.js';
import { startLogoutDeliveryWorker, type LogoutDeliveryWorker } from '../authorize/logout-delivery-worker.js';
import { createGuardedFetch } from '../net/guarded-fetch.js';
import { addressMatcher } from '../net/address-ranges.js';
import { createPushedRequests, type PushedRequests } from '../authorize/pushed-requests.js';
import { createJarm } from '../authorize/jarm.js';
import type { RequestValidator } from '../authorize/authorization-request.js';
import { authorizationRequestsOf, scopeDescriptionsOf, signInPartsLoader, verificationPageLoader } from './page-wiring.js';
import { createSignInPages } from '../http/pages/sign-in-pages.js';
import { BootError } from '../config/boot-error.js';
// ISSUE 34 (upstream sign-in).
import { createUpstreamSignIn } from '../upstream/upstream-sign-in.js';
import type { UpstreamAccounts } from '../upstream/upstream-accounts.js';
import { storedUpstreamAccounts } from '../upstream/stored-accounts.js';
import { withUpstreamSignIn } from './page-wiring.js';
import { createAccountPage } from '../http/pages/account-page.js';
import { createSecondFactorAccountPage } from '../http/pages/second-factor-page.js';
import type { UserRecordStore } from '../store/user-records.js';
import { createSecondFactorService, type SecondFactorService } from '../second-factor/second-factors.js';
import { createPasskeyService, type PasskeyService } from '../second-factor/passkeys.js';
import { createThrottledSignIn } from '../throttling/throttled-sign-in.js';
import { createInteractionLimit } from '../authorize/interaction-limit.js';
import type { ScopeDescriptions } from '../pages/device-views.js';
import { loadBranding, type Branding } from '../pages/branding.js';
import { pageAssets } from '../http/pages/assets.js';
import { createPageParts, type LoadPageParts } from '../pages/page-parts.js';
import { createRouter } from '../http/routes.js';
import { homePage } from '../http/pages/home-page.js';
import { corsForClients } from '../http/cors.js';
import { createMetrics, type Metrics } from '../http/metrics.js';
import { addOperationRoutes } from '../http/operations.js';
import { createDpopProofValidator, type DpopProofValidator } from '../sender-binding/dpop-proof-validator.js';
import { createDpopNonces } from '../sender-binding/dpop-nonces.js';
import { createKeyProtector, type KeyProtector } from '../oauth/keys/key-protection.js';
import { createUserAdmin } from '../users/user-admin.js';
import { createPasswordReset, type PasswordReset } from '../users/password-reset.js';
import { createPasswordChange } from '../users/password-change.js';
import { createMailer } from '../mail/mailer.js';
import { createPasswordResetMiddleware } from '../http/pages/password-reset-page.js';
import { createAdminApi, type AdminApi } from '../admin/admin-api.js';
import { serviceVersion } from './version.js';

/** What the app is made from: opened (and closed) by `createApp` itself. */
export interface ContainerInputs {
  readonly config: ResolvedConfig;
  /** The pino logger; every service logs through `logger`, which follows it. */
  readonly rootLogger: AppLogger;
  readonly clock: Clock;
  readonly store: Store;
  /** Spans (`src/tracing`); default `tracingOff`. */
  readonly tracing?: Tracing;
  /** Flushes and stops the tracing SDK; `createApp` calls it last on close. */
  readonly stopTracing?: () => Promise<void>;
  /** ISSUE 34: where upstream sign-ins find and create local users; default: in memory (`createMemoryUpstreamAccounts`). */
  readonly upstreamAccounts?: UpstreamAccounts;
}

/** Everything the container holds, by name. */
export interface HostCradle extends ContainerInputs {
  readonly tracing: Tracing;
  readonly stopTracing: () => Promise<void>;
  readonly upstreamAccounts: UpstreamAccounts;
  /** Where the guessing counters live (`counters` in the config); `createApp` awaits `ready()` and closes it. */
  counters: Counters;
  /** Issues 39, 40: the contract steps the database has recorded; `createApp` awaits `ready()` once the store is open and stops it. */
  contracts: WatchedContracts;
  /** Issue 40: whether this node writes time-ordered grant-family ids. */
  familyFormat: FamilyFormat;
  /** Every part logs through this; once the plugins declared their secret parameters, it redacts those too. */
  logger: SwitchableLogger;
  urls: EndpointUrls;
  /** The key-encryption keys (`signing.keyEncryptionKeys`), read once: they seal the signing keys and the page secret. */
  keyProtector: KeyProtector;
  keyRing: KeyRing;
  /**
   * The root secret of the cookies, CSRF tokens, DPoP nonces and shared counter keys
   * (`pages/cookie-secret.ts`); `create-app.ts` loads it from the store at start-up.
   */
  pageSecret: Buffer;
  /** Sinks come from plugins, which are built later: `create-app` attaches them once built. */
  events: EventService;
  tokenValidator: TokenValidator;
  /** The built-in users (the config's `users` and the database's), unless a plugin's user store replaces them. */
  configUsers: ResourceOwnerValidator;
  pluginRegistrar: ReturnType<typeof createPluginRegistrar>;
  /** The standard grants, as a plugin; also given the host services a stranger's grant cannot reach. */
  standardGrants: Plugin;
  logEvents: Plugin;
  registry: PluginRegistry;
  /** The user store in force: a plugin's, or the config's `users`. */
  resourceOwnerValidator: ResourceOwnerValidator;
  customSignInPage: SignInPage | undefined;
  refreshTokens: RefreshTokenService;
  idTokens: IdTokenIssuer;
  tokenIssuer: TokenIssuer;
  metrics: Metrics | undefined;
  /** Caps and credentials from what the host and every registered contribution declared. */
  parameterTable: ParameterTable;
  clientAuthenticator: ClientAuthenticator;
  /** Every client and API resource, from the config and the stores; `create-app` loads it once the plugins are built. */
  clientDirectory: ClientDirectory;
  /** Issue 37: the back-channel logout queue's worker; `create-app` starts it with the app and stops it on close. */
  logoutDeliveryWorker: LogoutDeliveryWorker;
  /** Queues logout tokens when a session ends (and kicks this node's worker). */
  backChannelLogout: BackChannelLogout;
  scopeCatalog: ScopeCatalog;
  /** The APIs a `resource` parameter may name (RFC 8707), built once from `apiResources`. */
  resourceCatalog: ResourceCatalog;
  /** The app's one 'password' back-off, for the pages (the password grant counts in the same one). */
  passwordThrottle: PasswordThrottle;
  /** Issue 35: one-time codes and recovery codes of the users the database keeps. */
  secondFactors: SecondFactorService;
  /** Issue 35: passkeys, when `secondFactor.passkeys` is on. */
  passkeys: PasskeyService | undefined;
  /** The cookie, CSRF and sign-in sessions every page shares (single sign-on across the pages). */
  pageParts: LoadPageParts;
  /** Configured scope descriptions, for consent on every page. */
  scopeDescriptions: ScopeDescriptions;
  /** The authorization request's checks, at the authorization endpoint and PAR. */
  authorizationRequests: RequestValidator;
  /** Pushed authorization requests (RFC 9126): PAR stores them, the authorization endpoint redeems them. */
  pushedRequests: PushedRequests;
  /** The pages' look from `pages` in the config, its files read and templates parsed at start-up. */
  branding: Branding;
  /** Issue 34: "Forgot password?", only when `smtp` is configured. */
  passwordReset: PasswordReset | undefined;
  signInPages: ReturnType<typeof createSignInPages>;
  devicePage: Middleware;
  /** DPoP proofs (RFC 9449) at the token endpoint and UserInfo. */
  dpop: DpopProofValidator;
  router: Router;
  /** The admin API's app (issue 39), made only when `admin` is configured and its listener starts. */
  adminApi: AdminApi;
}

export type ServiceContainer = AwilixContainer<HostCradle>;

export function createServiceContainer(inputs: ContainerInputs): ServiceContainer {
  const container = createContainer<HostCradle>({ injectionMode: InjectionMode.PROXY, strict: true });
  container.register({
    config: asValue(inputs.config),
    rootLogger: asValue(inputs.rootLogger),
    clock: asValue(inputs.clock),
    store: asValue(inputs.store),
    tracing: asValue(inputs.tracing ?? tracingOff),
    stopTracing: asValue(inputs.stopTracing ?? (async () => undefined)),
    // ISSUE 34: in memory until the database user store is connected.
    // The database's users by default, so an upstream sign-in makes a user like any other; read
    // through `store` at call time (the store is opened after the container is made).
    upstreamAccounts: asFunction(({ store, clock }: HostCradle) => inputs.upstreamAccounts ?? storedUpstreamAccounts(() => store.users, clock)).singleton(),

    logger: asFunction(({ rootLogger }: HostCradle) => switchableLogger(rootLogger)).singleton(),
    // Made before the page secret is loaded (the grants hold a back-off); it digests its first key only once a request comes.
    counters: asFunction(({ config, logger, clock }: HostCradle) => createCounters(config, { logger, clock, rootSecret: () => container.cradle.pageSecret })).singleton(),
    keyProtector: asFunction(({ config }: HostCradle) => createKeyProtector(config.signing.keyEncryptionKeys)).singleton(),
    urls: asFunction(({ config }: HostCradle) => endpointUrls(config.issuer)).singleton(),
    events: asFunction(({ logger, clock }: HostCradle) => createEventService(logger, () => clock.now())).singleton(),
    tokenValidator: asFunction(({ config, keyRing, store, clock }: HostCradle) => createTokenValidator({ config, keyRing, store, clock })).singleton(),
    // The store is a stand-in until it opens (after the plugins are built): read on each call.
    configUsers: asFunction(({ config, store, clock }: HostCradle) =>
      builtInUsers(config.users, createConfigUserValidator({ config }), createDatabaseUsers({
        users: () => store.users, clock, decoyCost: config.users.map((u) => scryptCostOf(u.password)).find((c) => c !== undefined),
      })),
    ).singleton(),
    pluginRegistrar: asFunction(({ config, urls, logger, clock, store, tokenValidator, configUsers }: HostCradle) =>
      createPluginRegistrar({ config, urls, logger, clock, store, tokenValidator, configUsers }),
    ).singleton(),
    contracts: asFunction(({ store, logger }: HostCradle) => watchContracts({ store, logger })).singleton(),
    familyFormat: asFunction(({ contracts }: HostCradle) => familyFormatOf(contracts)).singleton(),
    refreshTokens: asFunction(({ store, clock, logger }: HostCradle) => createRefreshTokenService({ store, clock, logger })).singleton(),
    standardGrants: asFunction(({ config, refreshTokens, events, store, counters, resourceCatalog }: HostCradle) =>
      standardGrants({ config, refreshTokens, events, store, counters, resources: resourceCatalog }),
    ).singleton(),
    logEvents: asFunction(({ config }: HostCradle) => logEvents(config.logLevel)).singleton(),

    // From here on, services that need the plugins' contributions.
    idTokens: asFunction(({ config, keyRing, clock, resourceOwnerValidator, tracing }: HostCradle) =>
      createIdTokenIssuer({ config, keyRing, clock, resourceOwnerValidator, tracing }),
    ).singleton(),
    tokenIssuer: asFunction(({ config, keyRing, store, clock, refreshTokens, idTokens, tracing, familyFormat }: HostCradle) =>
      createTokenIssuer({ config, keyRing, store, clock, refreshTokens, idTokens, tracing, families: familyFormat }),
    ).singleton(),
    metrics: asFunction(({ config }: HostCradle) => (config.metrics.enabled ? createMetrics() : undefined)).singleton(),
    parameterTable: asFunction(({ registry }: HostCradle) => buildParameterTable([...hostParameters, ...registry.parameters])).singleton(),
    clientDirectory: asFunction(({ config, registry, store, logger, clock }: HostCradle) => {
      const checker = createEntryChecker(config, registry);
      return createClientDirectory({
        config,
        stores: [...(config.clientStores.database ? [databaseClientStore(store.clientRecords)] : []), ...registry.clientStores],
        checker,
        logger,
        clock,
        // Issue 36: off unless the deployment accepts client ID metadata documents.
        documents: config.clientIdMetadataDocuments.enabled ? createMetadataDocuments({ config, checker, clock, logger }) : undefined,
      });
    }).singleton(),
    clientAuthenticator: asFunction(({ config, registry, clock, counters, events, tracing, clientDirectory }: HostCradle) =>
      createClientAuthenticator({
        clients: clientDirectory.clients,
        apiResources: clientDirectory.apiResources,
        directory: clientDirectory,
        secretParsers: registry.secretParsers,
        secretValidators: registry.secretValidators,
        clock,
        throttle: createAuthThrottle(config.authThrottle, counters.backoff('auth', config.authThrottle)),
        events,
        tracing,
      }),
    ).singleton(),
    logoutDeliveryWorker: asFunction(({ config, store, clock, logger, events, keyRing, tracing, clientDirectory }: HostCradle) => {
      const settings = config.backchannelLogout;
      const timeoutMs = settings.timeout * 1000;
      return startLogoutDeliveryWorker({
        deliveries: store.logoutDeliveries, clock, logger, events,
        send: createLogoutTokenSender({
          issuer: config.issuer, clients: clientDirectory.clients, logoutUriOf: (client) => client.backchannelLogoutUri, keyRing, clock, tracing, timeoutMs,
          // The same door as every server-side fetch (SSRF): special addresses only where the operator allows them.
          fetch: createGuardedFetch({
            maxBytes: 64 * 1024, timeoutMs, allowedAddresses: addressMatcher(settings.allowedAddresses), accept: '*/*', allowHttp: true, okStatuses: [200, 204],
          }),
        }),
        // The lease outlasts a post's time-out, so a live node is never overtaken mid-delivery.
        settings: { pollIntervalMs: settings.pollInterval * 1000, maxAttempts: settings.maxAttempts, retryDelayMs: settings.retryDelay * 1000, leaseMs: timeoutMs + 30_000 },
      });
    }).singleton(),
    backChannelLogout: asFunction(({ store, clock, logger, clientDirectory, logoutDeliveryWorker }: HostCradle) => createBackChannelLogout({
      clients: clientDirectory.clients, logoutUriOf: (client) => client.backchannelLogoutUri, deliveries: store.logoutDeliveries, clock, logger, worker: logoutDeliveryWorker,
    })).singleton(),
    scopeCatalog: asFunction(({ config }: HostCradle): ScopeCatalog => ({
      apiScopes: new Set(config.apiScopes.map((s) => s.name)),
      identityScopes: new Set(config.identityResources.map((r) => r.name)),
    })).singleton(),
    resourceCatalog: asFunction(({ config }: HostCradle) =>
      createResourceCatalog({ apiResources: config.apiResources, acceptNames: config.resourceIndicators.acceptNames }),
    ).singleton(),
    // One throttle for every door a password comes through: the password grant counts in the same
    // 'password' back-off, so neither page is a side door for guessing.
    passwordThrottle: asFunction(({ config, counters }: HostCradle) =>
      createPasswordThrottle(config.passwordThrottle, counters.backoff('password', config.passwordThrottle)),
    ).singleton(),
    // Codes are counted in the password back-off, under a name of their own (`second-factors.ts`).
    secondFactors: asFunction(({ config, store, clock, keyProtector, passwordThrottle, events }: HostCradle) => createSecondFactorService({
      factors: () => store.factors, protector: keyProtector, throttle: createThrottledSignIn({ passwordThrottle, clock }), issuer: config.issuer, clock, events,
      passkeys: config.secondFactor.passkeys,
    })).singleton(),
    passkeys: asFunction(({ config, store, clock, events }: HostCradle) => (config.secondFactor.passkeys
      ? createPasskeyService({ issuer: config.issuer, store: () => store, factors: () => store.factors, clock, events })
      : undefined)).singleton(),
    pageParts: asFunction(({ config, store, clock, pageSecret, contracts }: HostCradle) => createPageParts({ config, store, clock, secret: pageSecret, contracts })).singleton(),
    scopeDescriptions: asFunction(({ config }: HostCradle) => scopeDescriptionsOf(config)).singleton(),
    authorizationRequests: asFunction(({ config, registry, store, clock, clientDirectory, scopeCatalog, resourceCatalog }: HostCradle) =>
      authorizationRequestsOf(clientDirectory.clients, scopeCatalog, { config, verifiers: registry.clientSignatureVerifiers, store, clock }, resourceCatalog)).singleton(),
    pushedRequests: asFunction(({ store, clock }: HostCradle) => createPushedRequests({ store, clock })).singleton(),
    branding: asFunction(({ config }: HostCradle) => loadBranding(config)).singleton(),
    passwordReset: asFunction(({ config, store, clock, logger, events, counters }: HostCradle) => {
      if (!config.smtp) return undefined;
      return createPasswordReset({
        users: () => store.users, store, mailer: createMailer(config.smtp, config.configDir),
        change: createPasswordChange({ users: () => store.users, rules: config.passwordRules, clock }), rules: config.passwordRules,
        lifetimeSeconds: config.smtp.resetLinkLifetime, linkBase: config.issuer + paths.accountPasswordReset,
        // Where the other limits count, so N nodes allow these once between them.
        perAddress: counters.windowLimit('password-reset-address', { limit: 10, window: 3600 }),
        perAccount: counters.windowLimit('password-reset-account', { limit: 3, window: 3600 }),
        clock, logger, events,
      });
    }).singleton(),
    signInPages: asFunction((cradle: HostCradle) => {
      const { config, store, clock, logger, counters } = cradle;
      // ISSUE 34: the configured identity providers, served through the external sign-in seam.
      const customPage = withUpstreamSignIn(cradle.customSignInPage, config.identityProviders.length === 0 ? undefined : createUpstreamSignIn({
        config, accounts: cradle.upstreamAccounts, store, clock, logger, events: cradle.events,
      }));
      return createSignInPages({
        issuer: config.issuer, limits: config.limits, logger, customPage, branding: cradle.branding, forgotPassword: cradle.passwordReset !== undefined,
        signInParts: signInPartsLoader({
          config, clients: cradle.clientDirectory.clients, store, clock, logger, events: cradle.events, families: cradle.familyFormat,
          resourceOwnerValidator: cradle.resourceOwnerValidator, keyRing: cradle.keyRing,
          prepareClient: (clientId) => cradle.clientDirectory.prepare(clientId),
          validator: cradle.authorizationRequests, pushed: cradle.pushedRequests, scopeDescriptions: cradle.scopeDescriptions,
          customPage, passwordThrottle: cradle.passwordThrottle, pageParts: cradle.pageParts,
          sealResponse: createJarm({ issuer: config.issuer, clients: cradle.clientDirectory.clients, keyRing: cradle.keyRing, clock, logger, tracing: cradle.tracing }),
          secondFactors: { service: cradle.secondFactors, accountOf: databaseAccount(() => store.users), passkeys: cradle.passkeys },
          backChannelLogout: cradle.backChannelLogout,
          // Where the guessing counters are, so N nodes allow the limit once between them.
          interactionLimit: createInteractionLimit({
            perAddress: counters.windowLimit('interaction-address', { limit: config.interactionLimit.maxPerAddress, window: config.interactionLimit.window }),
            total: counters.windowLimit('interaction-total', { limit: config.interactionLimit.maxTotal, window: config.interactionLimit.window }),
            clock,
          }),
        }),
      });
    }).singleton(),
    devicePage: asFunction((cradle: HostCradle) => {
      const { config, store, clock, logger, counters } = cradle;
      return createDevicePage({
        issuer: config.issuer, limits: config.limits, userCodeFormat: config.deviceFlow.userCodeFormat, logger, branding: cradle.branding,
        forgotPassword: cradle.passwordReset !== undefined,
        verificationPage: verificationPageLoader({
          config, clients: cradle.clientDirectory.clients, store, clock, logger, events: cradle.events,
          resourceOwnerValidator: cradle.resourceOwnerValidator, scopeDescriptions: cradle.scopeDescriptions,
          // Shared counters when configured, else the store (RFC 8628 §5.1: the user code's guessing limit).
          failedAttempts: counters.deviceFailedAttempts({ clock, maxFailures: config.deviceFlow.maxFailedAttempts, windowSeconds: config.deviceFlow.failedAttemptsWindow })
            ?? createFailedAttempts({ store, clock, maxFailures: config.deviceFlow.maxFailedAttempts, windowSeconds: config.deviceFlow.failedAttemptsWindow }),
          passwordThrottle: cradle.passwordThrottle, pageParts: cradle.pageParts, secondFactors: cradle.secondFactors, passkeys: cradle.passkeys,
        }),
        passkeys: cradle.passkeys !== undefined,
      });
    }).singleton(),
    dpop: asFunction(({ config, store, clock, pageSecret }: HostCradle) => createDpopProofValidator({
      config, store, clock,
      nonces: createDpopNonces({
        secret: async () => pageSecret,
        clock,
        lifetimeSeconds: config.dpop.nonceLifetime,
      }),
    })).singleton(),
    router: asFunction(createHostRouter).singleton(),
    adminApi: asFunction((cradle: HostCradle) => {
      const { config, store, clock, logger, events, tokenValidator, dpop, keyRing, keyProtector, registry } = cradle;
      return createAdminApi({
        config, store, clock, logger, events, tokenValidator, dpop, keyRing, protector: keyProtector, version: serviceVersion,
        clientFields: describedClientFields(registry),
        // The same operations as `svc clients`, `svc apis` and `svc users`.
        clientAdmin: createClientAdmin({ records: store.clientRecords, checker: createEntryChecker(config, registry), config, clock }),
        userAdmin: createUserAdmin({ records: store.users, store, configUsers: config.users, rules: config.passwordRules, clock }),
        refreshClients: () => cradle.clientDirectory.refresh(),
      });
    }).singleton(),
  });
  return container;
}

/** Every endpoint and page, mapped onto HTTP. */
function createHostRouter(cradle: HostCradle): Router {
  const { config, store, clock, logger, events, keyRing, urls, registry, counters, metrics, parameterTable } = cradle;
  const { clientAuthenticator, tokenIssuer, tokenValidator, scopeCatalog, resourceOwnerValidator, signInPages, dpop } = cradle;
  const { clientDirectory } = cradle;
  // With a client store a stored client may bring origins later, so the middleware is always there.
  const corsNeeded = clientDirectory.dynamic || clientDirectory.facts().corsOrigins.size > 0;
  const router = createRouter(
    {
      token: createTokenEndpoint({
        clientAuthenticator, grants: registry.grants, tokenIssuer, scopeCatalog, resources: cradle.resourceCatalog, store, clock, logger, events,
        credentialParameters: parameterTable.credentials, dpop, tokenUrl: urls.token,
        certificateBinding: certificateBinding({ bindCertificateAuthenticated: config.mtls.certificateBoundAccessTokens }),
        tracing: cradle.tracing,
      }),
      introspection: createIntrospectionEndpoint({
        clientAuthenticator, tokenValidator, clock, events,
        inactiveLimit: memoryWindowLimit({ limit: config.introspectionLimit.maxInactive, window: config.introspectionLimit.window }),
        signer: createIntrospectionSigner({
          issuer: config.issuer, keyRing, clock, tracing: cradle.tracing,
          // RFC 9701 §6: the API's choice, else RS256 (the default of `introspection_signed_response_alg`).
          algorithmFor: (api) => (api.introspectionSigningAlgorithm ?? 'RS256') as SigningAlgorithm,
        }),
      }),
      revocation: createRevocationEndpoint({ issuer: config.issuer, clientAuthenticator, store, logger, events }),
      deviceAuthorization: createDeviceAuthorizationEndpoint({
        clientAuthenticator, scopeCatalog, resources: cradle.resourceCatalog, store, clock,
        userCodes: userCodeScheme(config.deviceFlow.userCodeFormat),
        verificationUri: config.issuer + paths.devicePage,
        limits: {
          perAddress: memoryWindowLimit({ limit: config.deviceFlow.maxAuthorizationsPerAddress, window: config.deviceFlow.authorizationsWindow }),
          perClient: memoryWindowLimit({ limit: config.deviceFlow.maxAuthorizationsPerClient, window: config.deviceFlow.authorizationsWindow }),
        },
        events,
      }),
      devicePage: cradle.devicePage,
      accountPage: createAccountPage({
        config, users: () => store.users, resourceOwnerValidator, passwordThrottle: cradle.passwordThrottle, pageParts: cradle.pageParts, clock, logger,
      }),
      ...(cradle.passwordReset ? { passwordResetPage: createPasswordResetMiddleware({ config, reset: cradle.passwordReset, pageParts: cradle.pageParts, logger }) } : {}),
      secondFactorPage: createSecondFactorAccountPage({
        config, factors: cradle.secondFactors, accountOf: databaseAccount(() => store.users), pageParts: cradle.pageParts, logger, passkeys: cradle.passkeys,
      }),
      signIn: signInPages,
      par: createParEndpoint({
        clientAuthenticator, validator: cradle.authorizationRequests, pushed: cradle.pushedRequests, credentialParameters: parameterTable.credentials,
        dpop, parUrl: config.issuer + paths.par,
      }),
      userInfo: createUserInfoEndpoint({ config, tokenValidator, users: resourceOwnerValidator, dpop }),
      dpopNonce: () => dpop.currentNonce(),
      ...(corsNeeded ? { cors: corsForClients(() => clientDirectory.facts().corsOrigins) } : {}),
      discoveryJson: discoveryDocument(config, urls, registry, () => clientDirectory.facts()),
      jwksJson: () => keyRing.jwksJson(),
      homePage: homePage(config.issuer),
      ...(cradle.branding.assets.size > 0 ? { pageAssets: pageAssets(cradle.branding) } : {}),
      ...(config.registration.enabled
        ? {
            registration: createRegistrationEndpoint({
              config,
              certificateBoundTokens: receivesClientCertificates(config),
              admin: createClientAdmin({ records: store.clientRecords, checker: createEntryChecker(config, registry), config, clock }),
              tokens: createRegistrationTokens({ store, clock }),
              // A wrong registration token is a failed authentication of its address: authThrottle's per-address rule.
              throttle: createRegistrationTokenThrottle({ threshold: config.authThrottle.addressThreshold }, counters.backoff('registration', config.authThrottle)),
              clock,
              refresh: () => cradle.clientDirectory.refresh(),
              // Issue 36: the `"open"` policy's limits, counted where the other limits count.
              openLimit: createOpenRegistrationLimit({
                perAddress: counters.windowLimit('registration-open-address', { limit: config.registration.openRegistration.maxPerAddress, window: config.registration.openRegistration.window }),
                total: counters.windowLimit('registration-open-total', { limit: config.registration.openRegistration.maxTotal, window: config.registration.openRegistration.window }),
                clock,
              }),
            }),
          }
        : {}),
    },
    { ...config.limits, parameterTable },
  );
  addOperationRoutes(router, { store, metrics, metricsToken: config.metrics.bearerToken });
  return router;
}

/**
 * The plugins' contributions, once every plugin is built: what the services resolved after this
 * (the token issuer, ID tokens, the pages, the router) are made with.
 */
export function registerPluginContributions(container: ServiceContainer): PluginRegistry {
  const { pluginRegistrar } = container.cradle;
  const registry = pluginRegistrar.registry();
  // ISSUE 34: one external sign-in at a time; which one would answer the callback is no guess.
  if (container.cradle.config.identityProviders.length > 0 && pluginRegistrar.signInPage()?.externalSignIn) {
    throw new BootError('PLUGIN_CONFLICT', 'identityProviders: a sign-in plugin already brings its own externalSignIn; remove identityProviders or that plugin\'s externalSignIn');
  }
  container.register({
    registry: asValue(registry),
    resourceOwnerValidator: asValue(pluginRegistrar.resourceOwnerValidator()),
    customSignInPage: asValue(pluginRegistrar.signInPage()),
  });
  return registry;
}

export function registerKeyRing(container: ServiceContainer, keyRing: KeyRing): void {
  container.register({ keyRing: asValue(keyRing) });
}

/** The opened store, once the config has passed every check; the services made before it hold a stand-in (`late-bound.ts`). */
export function registerStore(container: ServiceContainer, store: Store): void {
  container.register({ store: asValue(store) });
}

export function registerPageSecret(container: ServiceContainer, pageSecret: Buffer): void {
  container.register({ pageSecret: asValue(pageSecret) });
}

/** Issue 35: the username of an enabled user the database keeps (who can set up a second factor), else undefined. */
function databaseAccount(users: () => UserRecordStore): (subject: string) => Promise<string | undefined> {
  return async (subject) => {
    const user = await users().getBySubject(subject);
    return user && !user.disabled ? user.username : undefined;
  };
}
