/**
 * The one way a test starts the service, shared by the plugin authors' kit (`index.ts`) and the
 * service's own tests (`test/support/server.ts`): the real app on a loopback port, its logs
 * captured.
 */
import { Writable } from 'node:stream';
import { createApp, type App, type CreateAppOptions } from '../app/create-app.js';
import { checkConfig } from '../config/load.js';
import type { ResolvedConfig, UserConfig } from '../config/schema.js';
import { freePort } from './free-port.js';

export interface ServiceStartOptions extends Omit<CreateAppOptions, 'logDestination'> {
  /** Directory relative paths in the config resolve against. */
  readonly configDir: string;
  /** Asked once the config is resolved, before the app is built: options to build it with (e.g. a filled store). */
  readonly prepare?: (config: ResolvedConfig) => Promise<Omit<CreateAppOptions, 'logDestination'>>;
}

export interface RunningService {
  readonly url: string;
  readonly app: App;
  /** The raw log text so far, one JSON line per entry. */
  logText(): string;
  close(): Promise<void>;
}

/**
 * Starts the service from `config`, filling in `port` (a free one unless named) and `issuer`
 * (the loopback URL of that port unless named).
 *
 * The port is probed free before the app is built (its issuer names it) and bound after, so in
 * between another test process can take it, as a listener or as the local port of an outgoing
 * connection: a port picked here that turns out taken is picked again, a few times.
 */
export async function startService(config: UserConfig, options: ServiceStartOptions): Promise<RunningService> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnPort(config, options);
    } catch (error) {
      const taken = (error as NodeJS.ErrnoException | undefined)?.code === 'EADDRINUSE';
      if (!taken || config.port !== undefined || attempt === 5) throw error;
    }
  }
}

async function startOnPort(config: UserConfig, options: ServiceStartOptions): Promise<RunningService> {
  const port = config.port ?? (await freePort());
  const resolved = checkConfig({ ...config, port, issuer: config.issuer ?? `http://127.0.0.1:${port}` }, options.configDir);
  const chunks: string[] = [];
  const logDestination = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  const { configDir: _configDir, prepare, ...appOptions } = options;
  const prepared = prepare ? await prepare(resolved) : {};
  const app = await createApp(resolved, { ...appOptions, ...prepared, logDestination });
  let url: string;
  try {
    ({ url } = await app.listen(port, '127.0.0.1'));
  } catch (error) {
    await app.close();
    throw error;
  }
  return { url, app, logText: () => chunks.join(''), close: () => app.close() };
}
