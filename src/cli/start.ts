import { createApp } from '../app/create-app.js';
import { loadConfig } from '../config/load.js';

/** Runs the service until SIGTERM/SIGINT, then drains in-flight requests and closes the store. */
export async function start(configPath: string | undefined): Promise<number> {
  const { config, filepath } = await loadConfig({ path: configPath });
  const app = await createApp(config);
  const { url } = await app.listen();
  app.logger.info({ url, issuer: config.issuer, config: filepath, store: config.store.split(':')[0] }, 'svc listening');
  return new Promise((resolve) => {
    let stopping = false;
    const stop = (signal: string): void => {
      if (stopping) return;
      stopping = true;
      app.logger.info({ signal }, 'shutting down');
      const force = setTimeout(() => resolve(1), 10_000);
      force.unref();
      app.close().then(
        () => resolve(0),
        (err: unknown) => {
          app.logger.error({ err }, 'shutdown failed');
          resolve(1);
        },
      );
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  });
}
