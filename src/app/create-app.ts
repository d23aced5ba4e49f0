/**
 * Builds the whole service from a resolved config: the awilix container (`container.ts`, the one
 * composition root) that makes every service, the plugins built and the config checked against
 * them, then the store, counters, signing keys and page secret, and the Koa app around the
 * router the container resolves. Nothing is written before every check has passed, and nothing
 * serves a request before every plugin has passed its checks.
 */
import { createRegistrationTokens } from '../clients/registration/registration-tokens.js';
import { removeUnusedRegistrations } from '../clients/registration/unused-registrations.js';
import type { UpstreamAccounts } from '../upstream/upstream-accounts.js';
import { createServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import type { DestinationStream } from 'pino';
import type { ResolvedConfig } from '../config/schema.js';
import type { Clock } from '../sdk/contracts.js';
import { BootError } from '../config/boot-error.js';
import { createLogger, withRedacted, type AppLogger } from '../log/logger.js';
import { createStore } from '../store/create-store.js';
import { startExpiredGrantSweeper, type SweepResult } from '../store/expired-grant-sweeper.js';
import type { Store } from '../store/store.js';
import { createKeyRing, type KeyRing } from '../oauth/keys/key-ring.js';
import type { TokenIssuer } from '../oauth/token-issuer.js';
import { loadPlugins } from '../plugin-host/load-plugins.js';
import type { PluginRegistry } from '../plugin-host/plugin-registry.js';
import { checkConfigAgainstPlugins } from '../plugin-host/check-config.js';
import { jsonForBareStatuses } from '../http/routes.js';
import { errorResponse } from '../http/error-response.js';
import type { Metrics } from '../http/metrics.js';
import { answerClientError, answerConnect, maxHeaderBytes } from '../http/client-error.js';
import { inCohorts } from '../http/cohorts.js';
import { boundConnections, connectionServerOptions } from '../http/connection-bounds.js';
import { requestId } from '../http/request-id.js';
import { singleAuthorization } from '../http/single-authorization.js';
import { clientOrigin } from '../http/client-address.js';
import { clientCertificates } from '../http/client-certificate.js';
import { loadTlsMaterial, receivesClientCertificates, type TlsMaterial } from '../config/tls-material.js';
import { createServiceContainer, registerKeyRing, registerPageSecret, registerPluginContributions, registerStore, type ServiceContainer } from './container.js';
import { lateBound } from './late-bound.js';
import { checkUsersUnique } from '../users/built-in-users.js';
import { loadCookieSecret } from '../pages/cookie-secret.js';
import { sampleSecretsInUse } from '../config/sample-secrets.js';
import { systemClock } from './system-clock.js';
import { closableServer } from './close-server.js';
import { listenAdmin } from '../admin/listener.js';
import { adminSetupWarnings } from '../admin/setup-warnings.js';
import { adminApiResource } from '../admin/authentication.js';
import { serviceVersion } from './version.js';
import type { TracerProvider } from '@opentelemetry/api';
import { createTracing, tracingOff, type Tracing } from '../tracing/tracing.js';
import { startTracing, tracerFrom, type StartedTracing } from '../tracing/start-tracing.js';
import { tracedStore } from '../tracing/traced-store.js';
import { traceRequests } from '../http/trace-requests.js';

export interface CreateAppOptions {
  /** Where logs go; stdout by default. Tests pass a stream to read them. */
  logDestination?: DestinationStream;
  clock?: Clock;
  /** An already-open store (tests); otherwise opened from `config.store`. */
  store?: Store;
  /** Spans go to this provider (tests: the SDK's in-memory exporter) instead of the one `config.tracing` would start. */
  tracerProvider?: TracerProvider;
  /** ISSUE 34: where upstream sign-ins find and create local users (the database user store); default in memory. */
  upstreamAccounts?: UpstreamAccounts;
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
  /**
   * Starts the admin API's own listener (`admin` in the config; issue 39), by default on
   * `admin.port` and `admin.host`; resolves with its URL. Refused when `admin` is not configured.
   */
  listenAdmin(port?: number, host?: string): Promise<{ url: string }>;
  /** Stops timers, closes the servers (finishing in-flight requests) and the store. */
  close(): Promise<void>;
}

async function openStore(config: ResolvedConfig, logger: AppLogger): Promise<Store> {
  try {
    const store = await createStore(config.store, config.configDir, {
      onFileOpenToOthers: ({ file, mode }) =>
        logger.warn({ file, mode }, `database file ${file} is open to other local users (mode ${mode}): it holds token hashes and, without a key-encryption key, the signing keys; chmod 600 it`),
    });
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
  // Before anything is opened: a bad certificate or key file stops start-up naming its field.
  const tls = loadTlsMaterial(config);
  const rootLogger = createLogger(config.logLevel, options.logDestination);
  for (const line of config.deprecations) rootLogger.warn(line);
  const samples = sampleSecretsInUse(config);
  if (samples) {
    rootLogger.warn(samples, 'secrets published in the README\'s samples are in use: anyone can authenticate as these clients and APIs; replace them (npx svc hash-secret)');
  }
  const clock = options.clock ?? systemClock;
  let started: StartedTracing | undefined;
  try {
    started = options.tracerProvider
      ? { tracer: tracerFrom(options.tracerProvider, serviceVersion), shutdown: async () => undefined }
      : config.tracing.enabled ? await startTracing(config.tracing, serviceVersion) : undefined;
  } catch (err) {
    throw new BootError('TRACING_FAILED', `tracing: ${(err as Error).message}`, { cause: err });
  }
  const tracing: Tracing = started ? createTracing(started.tracer) : tracingOff;
  const stopTracing = started ? () => started.shutdown().catch(() => undefined) : async () => undefined;
  // The plugins are built before the store is opened: stand-ins until then (`late-bound.ts`).
  const lateStore = lateBound<Store>('the store');
  const lateKeyRing = lateBound<KeyRing>('the signing key ring');
  const container = createServiceContainer({ config, rootLogger, clock, store: lateStore.value, tracing, stopTracing, ...(options.upstreamAccounts ? { upstreamAccounts: options.upstreamAccounts } : {}) });
  registerKeyRing(container, lateKeyRing.value);
  let store: Store | undefined;
  let keyRing: KeyRing | undefined;
  try {
    // Every check of the config first: nothing is created or written for a config start-up refuses.
    // The pages' files and templates (`pages`): one missing or broken stops start-up naming its field.
    void container.cradle.branding;
    const registry = await buildPlugins(container);
    const opened = options.store ?? (await openStore(config, rootLogger));
    store = started ? tracedStore(opened, tracing, config.store.split(':')[0]!) : opened;
    lateStore.bind(store);
    registerStore(container, store);
    // After the store: its migrations create the PostgreSQL counters' table.
    await container.cradle.counters.ready();
    // Before any token is issued: whether the database is contracted (issue 40).
    await container.cradle.contracts.ready();
    // Before any key is made: a stored client the config's rules refuse, or a client id two stores define, stops start-up.
    await container.cradle.clientDirectory.load();
    // Likewise a username (or subject id) both the config and the database hold.
    await checkUsersUnique(config.users, store.users);
    const { logger, keyProtector } = container.cradle;
    keyRing = await createKeyRing({ config, store, clock, logger, protector: keyProtector });
    lateKeyRing.bind(keyRing);
    registerKeyRing(container, keyRing);
    registerPageSecret(container, await loadCookieSecret({ configured: config.pageSecret, store, clock, protector: keyProtector }));
    return assemble(container, registry, tls);
  } catch (err) {
    keyRing?.stop();
    if (container.cache.has('contracts')) container.cradle.contracts.stop();
    await keyRing?.close().catch(() => undefined);
    // Only if made: closing them must not open a connection first.
    if (container.cache.has('counters')) await container.cradle.counters.close().catch(() => undefined);
    if (store && !options.store) await store.close().catch(() => undefined);
    await stopTracing();
    throw err;
  }
}

/** Loads, builds and registers every plugin, and checks the config against what they provide. */
async function buildPlugins(container: ServiceContainer): Promise<PluginRegistry> {
  const { config } = container.cradle;
  const registrar = container.cradle.pluginRegistrar;
  const folders = await loadPlugins(config);
  // A plugin's user store goes in first: the password grant, the device page and ID tokens are built with it.
  for (const { plugin, folder } of folders) await registrar.useResourceOwnerValidator(plugin, folder.dir);
  for (const { plugin, folder } of folders) await registrar.useSignInPage(plugin, folder.dir);
  await registrar.registerPlugin(container.cradle.standardGrants, '(built-in)');
  await registrar.registerPlugin(container.cradle.logEvents, '(built-in)');
  for (const { plugin, folder } of folders) {
    await registrar.registerPlugin(plugin, folder.dir);
  }
  const registry = registerPluginContributions(container);
  checkConfigAgainstPlugins(config, registry);
  return registry;
}

/** The app around the services, once the store is open and the keys are loaded. */
function assemble(container: ServiceContainer, registry: PluginRegistry, tls: TlsMaterial): App {
  const { config, rootLogger, logger, clock, store, counters, events, tracing, stopTracing } = container.cradle;
  const { clientDirectory, metrics, parameterTable, keyRing, tokenIssuer, contracts } = container.cradle;
  events.attach([...registry.eventSinks, ...(metrics ? [metrics.sink] : [])]);
  for (const p of registry.plugins) {
    events.raise({ type: 'plugin.loaded', plugin: p.name, source: p.source, grantTypes: p.grantTypes, authenticationMethods: p.authenticationMethods });
  }
  // From now on every log line also redacts the parameters the plugins declared secret.
  logger.use(withRedacted(rootLogger, parameterTable.secrets));
  const router = container.resolve('router');

  const koa = new Koa({ proxy: false });
  koa.silent = true;
  koa.use(requestId);
  if (tracing.enabled) koa.use(traceRequests(tracing));
  // First: every handler, limit and log line after it reads the client's address from ctx.ip.
  koa.use(clientOrigin({ trustedProxies: config.trustedProxies, forwardedHeader: config.forwardedHeader, issuerHttps: config.issuer.startsWith('https:') }));
  // After the client's origin: a proxy's certificate header is believed only from a trusted proxy.
  if (receivesClientCertificates(config)) {
    koa.use(clientCertificates({ header: config.mtls.certificateHeader, clientCas: tls.clientCas, clock, logger }));
  }
  if (metrics) koa.use(metrics.measure);
  koa.use(errorResponse(logger, metrics));
  koa.use(singleAuthorization);
  koa.use(jsonForBareStatuses);
  koa.use(router.routes());
  koa.use(router.allowedMethods());

  keyRing.start();
  clientDirectory.start();
  const sweeper = startExpiredGrantSweeper({
    store,
    intervalSeconds: config.cleanupInterval,
    clock,
    onError: (err: unknown) => logger.warn({ err }, 'expired grant sweep failed'),
    // Nodes on one PostgreSQL (or one SQLite file) take turns; an in-memory store is this process's alone.
    shared: config.store !== 'memory' && config.store !== 'sqlite::memory:',
    ...(metrics ? { onSweep: (result: SweepResult) => metrics.swept(result) } : {}),
  });

  // Issue 37: every node delivers queued back-channel logout tokens, its own and those a stopped node left.
  const logoutDeliveryWorker = container.cradle.logoutDeliveryWorker;

  // Issue 36: anonymously registered clients go when unused (`unused-registrations.ts`).
  const unusedSweep = config.registration.enabled && config.registration.policy === 'open' ? setInterval(() => {
    const tokens = createRegistrationTokens({ store, clock });
    removeUnusedRegistrations({ records: store.clientRecords, removeAccess: (id) => tokens.removeAccess(id), lifetimeSeconds: config.registration.openRegistration.unusedLifetime }, clock.now())
      .then(async (removed) => {
        if (removed.length === 0) return;
        logger.info({ count: removed.length }, 'unused openly registered clients removed');
        await clientDirectory.refresh();
      })
      .catch((err: unknown) => logger.warn({ err }, 'removing unused registered clients failed'));
  }, config.cleanupInterval * 1000).unref() : undefined;

  let closeServer: (() => Promise<void>) | undefined;
  let closeAdmin: (() => Promise<void>) | undefined;
  return {
    config,
    koa,
    logger: rootLogger,
    registry,
    store,
    tokenIssuer,
    metrics,
    listen(port = config.port, host = config.host) {
      const handler = inCohorts(koa.callback(), (err, res) => {
        logger.error({ err }, 'request handler threw');
        res.destroy();
      });
      const serverOptions = { maxHeaderSize: maxHeaderBytes, ...connectionServerOptions(config.connections) };
      const server: Server = tls.serverOptions ? createHttpsServer({ ...serverOptions, ...tls.serverOptions }, handler) : createServer(serverOptions, handler);
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
          resolve({ server: s, url: `${tls.serverOptions ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${bound}` });
        });
      });
    },
    async listenAdmin(port, host) {
      if (!config.admin) throw new Error('the admin API is off: set admin.port in the config');
      const bindHost = host ?? config.admin.host;
      const admin = await listenAdmin(container.resolve('adminApi'), port ?? config.admin.port, bindHost, config.connections, tls.adminServerOptions);
      closeAdmin = closableServer(admin.server);
      for (const line of adminSetupWarnings(bindHost, clientDirectory.apiResources.get(adminApiResource), config.admin.tls !== undefined)) logger.warn({ host: bindHost }, line);
      return { url: admin.url };
    },
    async close() {
      keyRing.stop();
      contracts.stop();
      clientDirectory.stop();
      sweeper.stop();
      await logoutDeliveryWorker.stop();
      if (unusedSweep) clearInterval(unusedSweep);
      await Promise.all([closeServer?.(), closeAdmin?.()]);
      // After the drain: the requests in flight may still be waiting on a signing thread.
      await keyRing.close();
      await counters.close();
      await store.close();
      // Last: the spans of the requests that just drained are sent too.
      await stopTracing();
    },
  };
}
