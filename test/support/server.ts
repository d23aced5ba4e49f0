/**
 * Starts the real service on an ephemeral loopback port from an inline config, with its logs
 * captured, for HTTP-level tests.
 */
import { fileURLToPath } from 'node:url';
import type { App } from '../../src/app/create-app.js';
import type { UserConfig } from '../../src/config/schema.js';
import type { Clock } from '../../src/sdk/contracts.js';
import type { Store } from '../../src/store/store.js';
import { freePort } from '../../src/testing/free-port.js';
import { startService } from '../../src/testing/start-service.js';
import { memoryStoreWithTestKeys } from './test-keys.js';
import { systemClock } from '../../src/app/system-clock.js';
import type { TracerProvider } from '@opentelemetry/api';
import type { UpstreamAccounts } from '../../src/upstream/upstream-accounts.js';

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
  /** Issue 34: where upstream sign-ins find and create local users. */
  upstreamAccounts?: UpstreamAccounts;
}

/**
 * Starts the service (the starter the plugin kit uses, `src/testing/start-service.ts`, port
 * clashes retried there). `issuer` and `port` are filled in; `store` defaults to memory, already
 * holding the test signing keys (`test-keys.ts`) unless the test passes its own store or keys.
 */
export async function startServer(config: UserConfig, options: StartOptions = {}): Promise<TestServer> {
  const clock = options.clock;
  const service = await startService(
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
    },
    {
      configDir: options.configDir ?? repoRoot,
      ...(clock ? { clock } : {}),
      ...(options.store ? { store: options.store } : {}),
      ...(options.tracerProvider ? { tracerProvider: options.tracerProvider } : {}),
      ...(options.upstreamAccounts ? { upstreamAccounts: options.upstreamAccounts } : {}),
      prepare: async (resolved) => {
        if (options.store) return {};
        const store = await memoryStoreWithTestKeys(resolved, clock ?? systemClock);
        return store ? { store } : {};
      },
    },
  );
  const { url, app, logText } = service;
  return {
    url,
    app,
    get logs() {
      return logText().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
    },
    logText,
    close: () => service.close(),
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
