/**
 * Cluster mode (`workers` > 1): N worker processes on node:cluster share one listening port.
 *
 * The primary serves nothing. It checks that the store is one every worker shares, prepares
 * that store once (migrations, first signing keys) so N workers do not race to create N keys,
 * then forks the workers; each runs the ordinary `svc start` and builds its own app. SIGTERM or
 * SIGINT on the primary drains every worker; a worker that dies is restarted after a back-off
 * that grows while it keeps dying, so a crash loop does not spin.
 */
import cluster, { type Worker } from 'node:cluster';
import { fileURLToPath } from 'node:url';
import { systemClock } from '../app/system-clock.js';
import { BootError } from '../config/boot-error.js';
import type { ResolvedConfig } from '../config/schema.js';
import { createLogger, type AppLogger } from '../log/logger.js';
import { createKeyRing } from '../oauth/keys/key-ring.js';
import { createStore } from '../store/create-store.js';
import { createMemoryStore } from '../store/memory-store.js';
import { createApp } from '../app/create-app.js';
import { aggregateForWorkers } from '../http/cluster-metrics.js';

const svcBin = fileURLToPath(new URL('../../bin/svc.mjs', import.meta.url));

/** Restart back-off: 250 ms doubling to 30 s; a worker that lived a minute resets it. */
const backoff = { firstMs: 250, maxMs: 30_000, healthyAfterMs: 60_000 } as const;
/** How long the primary waits for workers to drain before it kills them. */
const drainTimeoutMs = 15_000;

/** Stores that live inside one process cannot be shared by several workers. */
export function checkStoreIsShared(config: ResolvedConfig): void {
  if (config.workers <= 1) return;
  if (config.store === 'memory' || config.store === 'sqlite::memory:') {
    throw new BootError(
      'CONFIG_INVALID',
      `workers: ${config.workers} runs ${config.workers} processes that must share one store, but store is "${config.store}", ` +
        'which lives inside a single process (each worker would have its own tokens, replay cache and signing keys); ' +
        'use store: "sqlite:<path>" or "postgres://...", or set workers: 1',
    );
  }
}

/**
 * Migrates the store and creates any missing signing keys, once, before workers start. First
 * the checks every worker would make (the config against the plugins, as `svc check` runs them,
 * against a throw-away store): a config they would refuse writes nothing.
 */
export async function prepareSharedStore(config: ResolvedConfig, logger: AppLogger): Promise<void> {
  const checked = await createApp({ ...config, logLevel: 'silent', tracing: { ...config.tracing, enabled: false } }, { store: createMemoryStore() });
  await checked.close();
  let store;
  try {
    store = await createStore(config.store, config.configDir);
    await store.migrate();
  } catch (err) {
    await store?.close().catch(() => undefined);
    const where = config.store.replace(/(\/\/[^:/@]+):[^@]*@/, '$1:***@');
    throw new BootError('STORE_UNAVAILABLE', `store "${where}": ${(err as Error).message}`, { cause: err });
  }
  try {
    // Building a key ring runs its first reload, which writes the first key of each algorithm.
    // The ring is dropped without start(): workers own refresh and rotation.
    await createKeyRing({ config, store, clock: systemClock, logger });
  } finally {
    await store.close();
  }
}

/**
 * Runs the primary until SIGTERM/SIGINT and every worker has exited. Returns 0 when all
 * workers drained cleanly; 1 when start-up failed or a worker had to be killed.
 */
export async function runPrimary(config: ResolvedConfig, configPath: string): Promise<number> {
  // Workers load the same file; the port and host the primary resolved (config, --port/PORT,
  // --host/HOST) go along.
  checkStoreIsShared(config);
  const logger = createLogger(config.logLevel);
  await prepareSharedStore(config, logger);

  if (config.metrics.enabled) aggregateForWorkers();
  cluster.setupPrimary({ exec: svcBin, args: ['start', '--config', configPath, '--port', String(config.port), '--host', config.host] });
  logger.info({ workers: config.workers, config: configPath }, 'cluster starting');

  return new Promise((resolve) => {
    const live = new Set<Worker>();
    const restarts = new Set<NodeJS.Timeout>();
    let anyListening = false;
    let stopping = false;
    let exitCode = 0;
    let crashStreak = 0;

    const finishIfDone = (): void => {
      if (stopping && live.size === 0) {
        logger.info({ exitCode }, 'cluster stopped');
        resolve(exitCode);
      }
    };

    const fork = (): void => {
      const worker = cluster.fork();
      const bornAt = Date.now();
      live.add(worker);
      worker.once('listening', () => {
        anyListening = true;
      });
      worker.once('exit', (code, signal) => {
        live.delete(worker);
        if (stopping) {
          if (code !== 0) exitCode = 1;
          finishIfDone();
          return;
        }
        const detail = { worker: worker.id, workerPid: worker.process.pid, code, signal };
        if (!anyListening) {
          // No worker ever came up: the cause (a broken plugin, say) will not go away by retrying.
          logger.error(detail, 'worker failed to start; stopping the cluster');
          exitCode = 1;
          stop('start-up failure');
          return;
        }
        crashStreak = Date.now() - bornAt >= backoff.healthyAfterMs ? 0 : crashStreak + 1;
        const delayMs = Math.min(backoff.firstMs * 2 ** Math.max(crashStreak - 1, 0), backoff.maxMs);
        logger.warn({ ...detail, restartInMs: delayMs }, 'worker exited; restarting it');
        const timer = setTimeout(() => {
          restarts.delete(timer);
          if (!stopping) fork();
        }, delayMs);
        restarts.add(timer);
      });
    };

    const stop = (reason: string): void => {
      if (stopping) return;
      stopping = true;
      logger.info({ reason, workers: live.size }, 'stopping workers');
      for (const timer of restarts) clearTimeout(timer);
      restarts.clear();
      for (const worker of live) worker.process.kill('SIGTERM');
      const force = setTimeout(() => {
        logger.error({ workers: live.size }, 'workers did not drain in time; killing them');
        exitCode = 1;
        for (const worker of live) worker.process.kill('SIGKILL');
      }, drainTimeoutMs);
      force.unref();
      finishIfDone();
    };

    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
    for (let i = 0; i < config.workers; i++) fork();
  });
}
