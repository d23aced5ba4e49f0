/**
 * Shared by the device flow tests: a config with device clients and users, a manual clock,
 * and a cookie-keeping client that drives the verification page's forms over HTTP.
 */
import { hashPassword } from '../../src/oauth/password-hash.js';
import { hashSecret } from '../../src/sdk/hash.js';
import type { ClientConfig, UserConfig } from '../../src/config/schema.js';
import type { Clock } from '../../src/sdk/contracts.js';
import { postForm, type TestServer } from '../support/server.js';

export const deviceGrantType = 'urn:ietf:params:oauth:grant-type:device_code';

export const alice = { subjectId: 'sub-alice', username: 'alice', password: 'alice-password-1', claims: { name: 'Alice Smith', email: 'alice@example.com' } };
export const bob = { subjectId: 'sub-bob', username: 'bob', password: 'bob-password-1', claims: { name: 'Bob Jones' } };

const tvScopes = ['openid', 'profile', 'email', 'api1.read', 'api1.write'];

export const deviceClients: ClientConfig[] = [
  // Public: authenticates with client_id alone.
  { clientId: 'tv', clientName: 'Living room TV', requireClientSecret: false, allowedGrantTypes: [deviceGrantType, 'refresh_token'], allowedScopes: tvScopes, allowOfflineAccess: true },
  // Confidential, with its own lifetime and interval.
  {
    clientId: 'cli', clientName: 'Command line tool', clientSecrets: [{ value: hashSecret('cli-secret') }],
    allowedGrantTypes: [deviceGrantType], allowedScopes: ['api1.read'], deviceCodeLifetime: 600, pollingInterval: 2,
  },
  { clientId: 'm2m', clientSecrets: [{ value: hashSecret('m2m-secret') }], allowedGrantTypes: ['client_credentials'], allowedScopes: ['api1.read'] },
];

let users: UserConfig['users'] | undefined;

/** The config every device test starts from; cheap scrypt cost to keep tests fast. */
export async function deviceConfig(overrides: Partial<UserConfig> = {}): Promise<UserConfig> {
  users ??= await Promise.all(
    [alice, bob].map(async (u) => ({ ...u, password: await hashPassword(u.password, { ln: 4, r: 8, p: 1 }) })),
  );
  return {
    apiScopes: [{ name: 'api1.read', description: 'Read your data in API 1' }, { name: 'api1.write', description: 'Change your data in API 1' }],
    apiResources: [{ name: 'api1', scopes: ['api1.read', 'api1.write'] }],
    identityResources: [
      { name: 'openid', claims: ['sub'] },
      { name: 'profile', description: 'Your name', claims: ['name'] },
      { name: 'email', description: 'Your email address', claims: ['email'] },
    ],
    users,
    clients: deviceClients,
    ...overrides,
  };
}

export interface ManualClock extends Clock {
  advance(seconds: number): void;
}

export function manualClock(start = Date.now()): ManualClock {
  let now = start;
  return { now: () => now, advance: (seconds) => void (now += seconds * 1000) };
}

export interface Codes {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}

export async function requestCodes(server: TestServer, params: Record<string, string> | string = { client_id: 'tv' }, headers: Record<string, string> = {}) {
  return postForm(`${server.url}/connect/deviceauthorization`, params, headers);
}

export async function codesFor(server: TestServer, params: Record<string, string> = { client_id: 'tv' }): Promise<Codes> {
  const res = await requestCodes(server, params);
  if (res.status !== 200) throw new Error(`device authorization failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as unknown as Codes;
}

export async function poll(server: TestServer, deviceCode: string, params: Record<string, string> = { client_id: 'tv' }, headers: Record<string, string> = {}) {
  return postForm(`${server.url}/connect/token`, { grant_type: deviceGrantType, device_code: deviceCode, ...params }, headers);
}

const entities: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };
const unescape = (s: string): string => s.replace(/&(amp|lt|gt|quot|#39);/g, (e) => entities[e]!);

/** The hidden fields of each form on a page, in order. */
export function hiddenFields(html: string): Array<Record<string, string>> {
  return [...html.matchAll(/<form\b[\s\S]*?<\/form>/g)].map(([form]) =>
    Object.fromEntries([...form.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)].map(([, n, v]) => [n!, unescape(v!)])),
  );
}

export interface PageResponse {
  status: number;
  html: string;
  headers: Headers;
}

/** A browser without JavaScript: keeps cookies, submits forms. */
export class PageClient {
  readonly cookies = new Map<string, string>();
  constructor(readonly baseUrl: string) {}

  private remember(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      this.cookies.set(pair!.slice(0, eq), pair!.slice(eq + 1));
    }
  }

  private cookieHeader(): Record<string, string> {
    return this.cookies.size ? { cookie: [...this.cookies].map(([n, v]) => `${n}=${v}`).join('; ') } : {};
  }

  async get(url: string): Promise<PageResponse> {
    const res = await fetch(new URL(url, this.baseUrl), { headers: this.cookieHeader(), redirect: 'manual' });
    this.remember(res);
    return { status: res.status, html: await res.text(), headers: res.headers };
  }

  async post(fields: Record<string, string>, path = '/device'): Promise<PageResponse> {
    const res = await fetch(new URL(path, this.baseUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...this.cookieHeader() },
      body: new URLSearchParams(fields),
      redirect: 'manual',
    });
    this.remember(res);
    return { status: res.status, html: await res.text(), headers: res.headers };
  }

  /** Submits the page's first form with its hidden fields plus `fields`. */
  submit(page: PageResponse, fields: Record<string, string>, formIndex = 0): Promise<PageResponse> {
    const hidden = hiddenFields(page.html)[formIndex];
    if (!hidden) throw new Error(`no form ${formIndex} on the page:\n${page.html}`);
    return this.post({ ...hidden, ...fields });
  }
}

/** Drives the page over HTTP: open the link, confirm the code, sign in, approve or deny. */
export async function decideOverHttp(
  baseUrl: string,
  verificationUriComplete: string,
  user: { username: string; password: string },
  decision: 'approve' | 'deny',
): Promise<PageResponse> {
  const browser = new PageClient(baseUrl);
  const entry = await browser.get(verificationUriComplete);
  const codeInput = /id="user_code" name="user_code" value="([^"]*)"/.exec(entry.html)?.[1] ?? '';
  const signIn = await browser.submit(entry, { user_code: unescape(codeInput) });
  const consent = await browser.submit(signIn, { username: user.username, password: user.password });
  if (!consent.html.includes('Allow access?')) throw new Error(`expected the consent page, got ${consent.status}:\n${consent.html}`);
  return browser.submit(consent, { decision });
}
