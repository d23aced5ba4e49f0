/**
 * The composition root: builds the whole service from a resolved config — store, keys, core
 * services, plugins, endpoints, Koa app — by plain calls, in the one order that works, here and
 * nowhere else. Every service is a factory over a small deps type; plugins get only the frozen
 * `PluginDependencies` the plugin registry builds. Nothing serves a request before every plugin
 * has passed its checks.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import type { DestinationStream } from 'pino';
import type { ResolvedConfig } from '../config/schema.js';
import type { Clock } from '../sdk/contracts.js';
import { BootError } from '../config/boot-error.js';
import { createLogger, withRedacted, type AppLogger } from '../log/logger.js';
import { switchableLogger } from '../log/switchable-logger.js';
import { createStore } from '../store/create-store.js';
import { startExpiredGrantSweeper } from '../store/expired-grant-sweeper.js';
import type { Store } from '../store/store.js';
import { createKeyRing } from '../oauth/keys/key-ring.js';
import { createClientAuthenticator } from '../oauth/client-authenticator.js';
import { createTokenIssuer, type TokenIssuer } from '../oauth/token-issuer.js';
import { createTokenValidator } from '../oauth/token-validator.js';
import { createConfigUserValidator } from '../oauth/config-user-validator.js';
import { createRefreshTokenService } from '../oauth/refresh-tokens.js';
import { createIdTokenIssuer } from '../oauth/id-token-issuer.js';
import { buildParameterTable, hostParameters } from '../oauth/form-params.js';
import { loadPluginFolders } from '../plugin-host/load-plugins.js';
import { createPluginRegistrar, type PluginRegistry } from '../plugin-host/plugin-registry.js';
import { checkConfigAgainstPlugins } from '../plugin-host/check-config.js';
import { standardGrants } from '../grants/index.js';
import { buildDiscoveryDocument } from '../endpoints/discovery.js';
import { createTokenEndpoint } from '../endpoints/token.js';
import { createIntrospectionEndpoint } from '../endpoints/introspection.js';
import { createRevocationEndpoint } from '../endpoints/revocation.js';
import { createUserInfoEndpoint } from '../endpoints/userinfo.js';
import { createParEndpoint } from '../endpoints/par.js';
import { createSignInPages } from '../http/sign-in-page/index.js';
import { createDeviceAuthorizationEndpoint } from '../endpoints/device-authorization.js';
import { userCodeScheme } from '../device/user-code.js';
import { createDevicePage } from '../http/device-page/index.js';
import { endpointUrls, paths } from '../endpoints/urls.js';
import { createRouter, jsonForBareStatuses } from '../http/routes.js';
import { homePage } from '../http/home-page.js';
import { errorResponse } from '../http/error-response.js';
import { corsForClients } from '../http/cors.js';
import { createMetrics, type Metrics } from '../http/metrics.js';
import { addOperationRoutes } from '../http/operations.js';
import { answerClientError, answerConnect, maxHeaderBytes } from '../http/client-error.js';
import { inCohorts } from '../http/cohorts.js';
import { boundConnections, connectionServerOptions } from '../http/connection-bounds.js';
import { createAuthThrottle } from '../oauth/auth-throttle.js';
import { createCounters, type Counters } from '../counters/counters.js';
import { createPasswordThrottle } from '../oauth/password-throttle.js';
import { memoryWindowLimit } from '../oauth/rate-limits.js';
import { createEventService } from '../events/event-service.js';
import { logEvents } from '../events/index.js';
import { requestId } from '../http/request-id.js';
import { singleAuthorization } from '../http/single-authorization.js';
import { clientOrigin } from '../http/client-address.js';
import { systemClock } from './system-clock.js';
import { closableServer } from './close-server.js';

export interface CreateAppOptions {
  /** Where logs go; stdout by default. Tests pass a stream to read them. */
  logDestination?: DestinationStream;
  clock?: Clock;
  /** An already-open store (tests); otherwise opened from `config.store`. */
  store?: Store;
}

export interface App {
  readonly config: ResolvedConfig;
  readonly koa: Koa;
  readonly logger: AppLogger;
  readonly registry: PluginRegistry;
  readonly store: Store;
  readonly tokenIssuer: TokenIssuer;
  readonly metrics: Metrics | undefined;
  /** Starts listening; resolves with the bound URL. */
  listen(port?: number, host?: string): Promise<{ server: Server; url: string }>;
  /** Stops timers, closes the server (finishing in-flight requests) and the store. */
  close(): Promise<void>;
}

async function openStore(config: ResolvedConfig): Promise<Store> {
  try {
    const store = await createStore(config.store, config.configDir);
    await store.migrate();
    return store;
  } catch (err) {
    if (err instanceof BootError) throw err;
    throw new BootError('STORE_UNAVAILABLE', `store "${redactUrl(config.store)}": ${(err as Error).message}`, { cause: err });
  }
}

/** Database URLs may carry a password; never print it. */
function redactUrl(spec: string): string {
  return spec.replace(/(\/\/[^:/@]+):[^@]*@/, '$1:***@');
}

export async function createApp(config: ResolvedConfig, options: CreateAppOptions = {}): Promise<App> {
  const logger = createLogger(config.logLevel, options.logDestination);
  const clock = options.clock ?? systemClock;
  const store = options.store ?? (await openStore(config));
  // After the store: its migrations create the PostgreSQL counters' table.
  const counters = createCounters(config, { logger, clock });
  try {
    await counters.ready();
    return await assemble(config, logger, clock, store, counters);
  } catch (err) {
    await counters.close().catch(() => undefined);
    if (!options.store) await store.close().catch(() => undefined);
    throw err;
  }
}

async function assemble(config: ResolvedConfig, rootLogger: AppLogger, clock: Clock, store: Store, counters: Counters): Promise<App> {
  // Every part logs through this; once the plugins declared their credential parameters, it
  // redacts those too.
  const logger = switchableLogger(rootLogger);
  const keyRing = await createKeyRing({ config, store, clock, logger });
  // Sinks come from plugins, which are built later: the service is created first and handed its
  // sinks once they are built.
  const events = createEventService(logger, () => clock.now());
  const urls = endpointUrls(config.issuer);
  const tokenValidator = createTokenValidator({ config, keyRing, store, clock });

  const registrar = createPluginRegistrar({ config, urls, logger, clock, store, tokenValidator, configUsers: createConfigUserValidator({ config }) });
  const folders = await loadPluginFolders(config.pluginDirs);
  // A plugin's user store goes in first: the password grant, the device page and ID tokens are built with it.
  for (const { plugin, folder } of folders) await registrar.useResourceOwnerValidator(plugin, folder.dir);
  for (const { plugin, folder } of folders) await registrar.useSignInPage(plugin, folder.dir);
  const resourceOwnerValidator = registrar.resourceOwnerValidator();
  const refreshTokens = createRefreshTokenService({ store, clock, logger });
  const idTokens = createIdTokenIssuer({ config, keyRing, clock, resourceOwnerValidator });
  const tokenIssuer = createTokenIssuer({ config, keyRing, store, clock, refreshTokens, idTokens });

  await registrar.registerPlugin(standardGrants({ config, refreshTokens, events, store, counters }), '(built-in)');
  await registrar.registerPlugin(logEvents(config.logLevel), '(built-in)');
  for (const { plugin, folder } of folders) {
    await registrar.registerPlugin(plugin, folder.dir);
  }
  const registry = registrar.registry();
  checkConfigAgainstPlugins(config, registry);
  const metrics = config.metrics.enabled ? createMetrics() : undefined;
  events.attach([...registry.eventSinks, ...(metrics ? [metrics.sink] : [])]);
  for (const p of registry.plugins) {
    events.raise({ type: 'plugin.loaded', plugin: p.name, source: p.source, grantTypes: p.grantTypes, authenticationMethods: p.authenticationMethods });
  }

  const clientAuthenticator = createClientAuthenticator({
    clients: new Map(config.clients.map((c) => [c.clientId, c])),
    apiResources: new Map(config.apiResources.map((r) => [r.name, r])),
    secretParsers: registry.secretParsers,
    secretValidators: registry.secretValidators,
    clock,
    throttle: createAuthThrottle(config.authThrottle, counters.backoff('auth', config.authThrottle)),
    events,
  });
  // Caps and credentials from what the host and every registered contribution declared.
  const parameterTable = buildParameterTable([...hostParameters, ...registry.parameters]);
  logger.use(withRedacted(rootLogger, parameterTable.secrets));
  const scopeCatalog = {
    apiScopes: new Set(config.apiScopes.map((s) => s.name)),
    identityScopes: new Set(config.identityResources.map((r) => r.name)),
  };
  const corsOrigins = new Set(config.clients.flatMap((c) => c.allowedCorsOrigins));
  // One throttle for every door a password comes through: the password grant counts in the same
  // 'password' back-off, so neither page is a side door for guessing.
  const passwordThrottle = createPasswordThrottle(config.passwordThrottle, counters.backoff('password', config.passwordThrottle));
  const signIn = createSignInPages({
    config, store, clock, logger, resourceOwnerValidator, scopeCatalog, keyRing, events,
    customPage: registrar.signInPage(), passwordThrottle,
  });
  const router = createRouter(
    {
      token: createTokenEndpoint({
        clientAuthenticator, grants: registry.grants, tokenIssuer, scopeCatalog, store, clock, logger, events,
        credentialParameters: parameterTable.credentials,
      }),
      introspection: createIntrospectionEndpoint({
        clientAuthenticator, tokenValidator, clock, events,
        inactiveLimit: memoryWindowLimit({ limit: config.introspectionLimit.maxInactive, window: config.introspectionLimit.window }),
      }),
      revocation: createRevocationEndpoint({ issuer: config.issuer, clientAuthenticator, store, logger, events }),
      deviceAuthorization: createDeviceAuthorizationEndpoint({
        clientAuthenticator, scopeCatalog, store, clock,
        userCodes: userCodeScheme(config.deviceFlow.userCodeFormat),
        verificationUri: config.issuer + paths.devicePage,
        limits: {
          perAddress: memoryWindowLimit({ limit: config.deviceFlow.maxAuthorizationsPerAddress, window: config.deviceFlow.authorizationsWindow }),
          perClient: memoryWindowLimit({ limit: config.deviceFlow.maxAuthorizationsPerClient, window: config.deviceFlow.authorizationsWindow }),
        },
        events,
      }),
      devicePage: createDevicePage({
        config, store, clock, logger, resourceOwnerValidator, events,
        failedAttempts: counters.deviceFailedAttempts({ clock, maxFailures: config.deviceFlow.maxFailedAttempts, windowSeconds: config.deviceFlow.failedAttemptsWindow }),
        passwordThrottle,
      }),
      signIn,
      par: createParEndpoint({ clientAuthenticator, validator: signIn.validator, pushed: signIn.pushed }),
      userInfo: createUserInfoEndpoint({ config, tokenValidator, users: resourceOwnerValidator }),
      ...(corsOrigins.size > 0 ? { cors: corsForClients(corsOrigins) } : {}),
      discoveryJson: buildDiscoveryDocument(config, urls, registry),
      jwksJson: () => keyRing.jwksJson(),
      homePage: homePage(config.issuer),
    },
    { ...config.limits, parameterTable },
  );
  addOperationRoutes(router, { store, metrics, metricsToken: config.metrics.bearerToken });

  const koa = new Koa({ proxy: false });
  koa.silent = true;
  koa.use(requestId);
  // First: every handler, limit and log line after it reads the client's address from ctx.ip.
  koa.use(clientOrigin({ trustedProxies: config.trustedProxies, forwardedHeader: config.forwardedHeader, issuerHttps: config.issuer.startsWith('https:') }));
  if (metrics) koa.use(metrics.measure);
  koa.use(errorResponse(logger, metrics));
  koa.use(singleAuthorization);
  koa.use(jsonForBareStatuses);
  koa.use(router.routes());
  koa.use(router.allowedMethods());

  keyRing.start();
  const sweeper = startExpiredGrantSweeper({
    store,
    intervalSeconds: config.cleanupInterval,
    clock,
    onError: (err: unknown) => logger.warn({ err }, 'expired grant sweep failed'),
  });

  let closeServer: (() => Promise<void>) | undefined;
  return {
    config,
    koa,
    logger: rootLogger,
    registry,
    store,
    tokenIssuer,
    metrics,
    listen(port = config.port, host = config.host) {
      const server = createServer({ maxHeaderSize: maxHeaderBytes, ...connectionServerOptions(config.connections) }, inCohorts(koa.callback(), (err, res) => {
        logger.error({ err }, 'request handler threw');
        res.destroy();
      }));
      closeServer = closableServer(server);
      server.on('clientError', answerClientError);
      server.on('connect', answerConnect);
      // Bounded waits for silent, slow or idle clients: none can hold a socket for ever.
      boundConnections(server, config.connections);
      const s = server;
      return new Promise((resolve, reject) => {
        s.once('error', reject);
        s.listen(port, host, () => {
          const { port: bound } = s.address() as AddressInfo;
          resolve({ server: s, url: `http://${host.includes(':') ? `[${host}]` : host}:${bound}` });
        });
      });
    },
    async close() {
      keyRing.stop();
      sweeper.stop();
      await closeServer?.();
      await counters.close();
      await store.close();
    },
  };
}
