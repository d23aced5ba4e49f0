/**
 * `svc/sdk/testing`: the plugin author's test kit. Starts the real service in-process with a
 * plugin folder and a config — a memory store, an ephemeral loopback port, logs captured — and
 * returns a small client for it, so a plugin's own tests read like the service's.
 *
 * It starts the service, so unlike `svc/sdk` it is not a leaf: import it from tests only.
 *
 * @example
 * import { startTestService } from 'svc/sdk/testing';
 *
 * const svc = await startTestService({
 *   pluginDirs: [new URL('..', import.meta.url).pathname],
 *   config: { clients: [{ clientId: 'app', requireClientSecret: false, allowedGrantTypes: ['urn:example:magic'], allowedScopes: ['api'] }],
 *             apiScopes: [{ name: 'api' }], apiResources: [{ name: 'api', scopes: ['api'] }] },
 * });
 * const res = await svc.token({ grant_type: 'urn:example:magic', client_id: 'app', word: 'please' });
 * expect(res.status).toBe(200);
 * await svc.close();
 */
import type { UserConfig } from '../config/schema.js';
import { startService } from './start-service.js';

export interface TestServiceOptions {
  /**
   * Folders of plugins to load, e.g. the folder holding your plugin's folder. Default: none. The
   * package's first-party plugins load too, as in a deployment; `config.packagePlugins: []` leaves them out.
   */
  readonly pluginDirs?: readonly string[];
  /** The deployment's config; `issuer`, `port`, `store` and `pluginDirs` are filled in. */
  readonly config?: UserConfig;
}

export interface TestResponse {
  readonly status: number;
  readonly headers: Headers;
  /** The parsed JSON body (`{ error, error_description }` for an OAuth error), `undefined` when none. */
  readonly body: Record<string, unknown> | undefined;
}

export interface TestService {
  /** The service's base URL, also its issuer, e.g. `http://127.0.0.1:41234`. */
  readonly url: string;
  /** POSTs a form to a path of the service, e.g. `/connect/introspect`. */
  post(path: string, params: Readonly<Record<string, string>>, headers?: Readonly<Record<string, string>>): Promise<TestResponse>;
  /** POSTs a token request to `/connect/token`. */
  token(params: Readonly<Record<string, string>>, headers?: Readonly<Record<string, string>>): Promise<TestResponse>;
  /** Every log line so far, parsed: check that nothing secret was logged. */
  logs(): Array<Record<string, unknown>>;
  close(): Promise<void>;
}

/** A `Basic` header for a client id and shared secret (RFC 6749 §2.3.1). */
export function basicAuthorization(clientId: string, secret: string): Record<string, string> {
  const encode = (s: string) => encodeURIComponent(s).replaceAll('%20', '+');
  return { authorization: `Basic ${Buffer.from(`${encode(clientId)}:${encode(secret)}`).toString('base64')}` };
}

export async function startTestService(options: TestServiceOptions = {}): Promise<TestService> {
  // Port and issuer are always the kit's own: a free loopback port, clashes retried.
  const { port: _port, issuer: _issuer, ...config } = options.config ?? {};
  const { url, logText, close } = await startService(
    { logLevel: 'debug', ...config, store: 'memory', pluginDirs: [...(options.pluginDirs ?? [])] },
    { configDir: process.cwd() },
  );
  async function post(path: string, params: Readonly<Record<string, string>>, headers: Readonly<Record<string, string>> = {}): Promise<TestResponse> {
    const res = await fetch(url + path, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(params).toString(),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>) };
  }
  return {
    url,
    post,
    token: (params, headers) => post('/connect/token', params, headers),
    logs: () => logText().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>),
    close,
  };
}
