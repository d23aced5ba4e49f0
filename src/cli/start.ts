import cluster from 'node:cluster';
import { createApp } from '../app/create-app.js';
import type { ResolvedConfig } from '../config/schema.js';
import { loadConfig } from '../config/load.js';
import { runPrimary } from './cluster.js';

/** How long a process waits for in-flight requests before it gives up and exits 1. */
const drainTimeoutMs = 10_000;

/**
 * Runs the service until SIGTERM/SIGINT, then drains in-flight requests and closes the store.
 * With `workers` > 1 this process becomes the cluster primary (see `cluster.ts`), and each
 * worker it forks runs this same command and serves.
 */
export async function start(configPath: string | undefined, port?: number, host?: string): Promise<number> {
  if (cluster.isWorker) {
    try {
      const { config, filepath } = await loadConfig({ path: configPath, port, host });
      return await serve(config, filepath);
    } catch (err) {
      // Without its IPC channel the failed worker can exit and the primary sees why.
      if (process.connected) process.disconnect();
      throw err;
    }
  }
  const { config, filepath } = await loadConfig({ path: configPath, port, host });
  return config.workers > 1 ? runPrimary(config, filepath) : serve(config, filepath);
}

async function serve(config: ResolvedConfig, filepath: string): Promise<number> {
  // Listen for signals before the (slow) build, so a stop during start-up is still graceful.
  let stopRequested: string | undefined;
  let stop = (reason: string): void => {
    stopRequested = reason;
  };
  // `on`, not `once`: a repeated signal (`npm start` forwards the Ctrl-C the terminal already sent)
  // would otherwise kill the process mid-drain. The drain limit below bounds the wait.
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  // A worker whose primary is gone must not linger as an orphan holding the port.
  if (cluster.isWorker) process.once('disconnect', () => stop('primary disconnected'));

  const app = await createApp(config);
  const { url } = await app.listen();
  const worker = cluster.worker?.id;
  app.logger.info(
    { url, issuer: config.issuer, config: filepath, store: config.store.split(':')[0], ...(worker ? { worker } : {}) },
    'svc listening',
  );
  // Issue 39: the admin API on a listener of its own, never the public port.
  if (config.admin) {
    const admin = await app.listenAdmin();
    app.logger.info({ url: admin.url }, 'admin API listening');
  }
  return new Promise((resolve) => {
    let stopping = false;
    stop = (reason) => {
      if (stopping) return;
      stopping = true;
      app.logger.info({ reason }, 'shutting down');
      const force = setTimeout(() => {
        app.logger.error({ timeoutMs: drainTimeoutMs }, 'requests did not drain in time; exiting');
        process.exit(1);
      }, drainTimeoutMs);
      force.unref();
      const done = (code: number): void => {
        // A worker's IPC channel would keep it alive; closing it lets the process end.
        if (cluster.isWorker && process.connected) process.disconnect();
        resolve(code);
      };
      app.close().then(
        () => done(0),
        (err: unknown) => {
          app.logger.error({ err }, 'shutdown failed');
          done(1);
        },
      );
    };
    if (stopRequested !== undefined) stop(stopRequested);
  });
}
