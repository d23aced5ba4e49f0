/**
 * Starts the real service on an ephemeral loopback port from an inline config, with its logs
 * captured, for HTTP-level tests.
 */
import { freePort } from './free-port.js';
import { fileURLToPath } from 'node:url';
import { Writable } from 'node:stream';
import { createApp, type App } from '../../src/app/create-app.js';
import { checkConfig } from '../../src/config/load.js';
import type { UserConfig } from '../../src/config/schema.js';
import type { Clock } from '../../src/sdk/contracts.js';
import type { Store } from '../../src/store/store.js';
import type { TracerProvider } from '@opentelemetry/api';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
export const firstPartyPlugins = fileURLToPath(new URL('../../plugins', import.meta.url));

export interface TestServer {
  readonly url: string;
  readonly app: App;
  /** Every log line so far, parsed. */
  readonly logs: Array<Record<string, unknown>>;
  /** The raw log text so far. */
  logText(): string;
  close(): Promise<void>;
}

export { freePort };

export interface StartOptions {
  clock?: Clock;
  store?: Store;
  /** Directory relative paths in the config resolve against. */
  configDir?: string;
  /** Spans go here (the SDK's in-memory exporter). */
  tracerProvider?: TracerProvider;
}

/**
 * Starts the service. `issuer` and `port` are filled in; `store` defaults to memory.
 *
 * The port is probed free before the app is built (its issuer names it) and bound after, so in
 * between another test process can take it, as a listener or as the local port of an outgoing
 * connection: a port picked here that turns out taken is picked again, a few times.
 */
export async function startServer(config: UserConfig, options: StartOptions = {}): Promise<TestServer> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnPort(config, options);
    } catch (error) {
      const taken = (error as NodeJS.ErrnoException | undefined)?.code === 'EADDRINUSE';
      if (!taken || config.port !== undefined || attempt === 5) throw error;
    }
  }
}

async function startOnPort(config: UserConfig, options: StartOptions): Promise<TestServer> {
  const port = config.port ?? (await freePort());
  const resolved = checkConfig(
    {
      store: 'memory',
      pluginDirs: [firstPartyPlugins],
      // Tests name every plugin dir they load (some load only shared-secret, or none).
      packagePlugins: [],
      logLevel: 'debug',
      // Tests send many failing requests from one address on purpose; each limit has its own test.
      authThrottle: { pairThreshold: 10_000, addressThreshold: 10_000 },
      passwordThrottle: { pairThreshold: 10_000, userThreshold: 10_000, addressThreshold: 10_000 },
      introspectionLimit: { maxInactive: 1_000_000 },
      interactionLimit: { maxPerAddress: 1_000_000, maxTotal: 1_000_000 },
      ...config,
      deviceFlow: { maxAuthorizationsPerAddress: 1_000_000, maxAuthorizationsPerClient: 1_000_000, ...config.deviceFlow },
      port,
      issuer: config.issuer ?? `http://127.0.0.1:${port}`,
    },
    options.configDir ?? repoRoot,
  );
  const chunks: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  const app = await createApp(resolved, {
    logDestination: destination,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.store ? { store: options.store } : {}),
    ...(options.tracerProvider ? { tracerProvider: options.tracerProvider } : {}),
  });
  let url: string;
  try {
    ({ url } = await app.listen(port, '127.0.0.1'));
  } catch (error) {
    await app.close();
    throw error;
  }
  const logText = (): string => chunks.join('');
  return {
    url,
    app,
    get logs() {
      return logText().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
    },
    logText,
    close: () => app.close(),
  };
}

/** POSTs a form; returns status, headers and parsed JSON body. */
export async function postForm(
  url: string,
  params: Record<string, string> | string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; body: Record<string, unknown> }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: typeof params === 'string' ? params : new URLSearchParams(params).toString(),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

export function basic(id: string, secret: string): string {
  const enc = (s: string): string => encodeURIComponent(s).replace(/%20/g, '+');
  return `Basic ${Buffer.from(`${enc(id)}:${enc(secret)}`).toString('base64')}`;
}
