/**
 * Shared by the sign-in tests: a config with a confidential web client, a public SPA client and
 * users, PKCE helpers, and a cookie-keeping browser without JavaScript that walks the sign-in
 * and consent pages (the device page's conventions: `username`, `password`, `decision`, `csrf`).
 */
import { createHash, randomBytes } from 'node:crypto';
import { hashPassword } from '../../src/oauth/password-hash.js';
import { hashSecret } from '../../src/sdk/hash.js';
import type { ClientConfig, UserConfig } from '../../src/config/schema.js';
import { postForm, type TestServer } from './server.js';

export const alice = { subjectId: 'sub-alice', username: 'alice', password: 'alice-password-1', claims: { name: 'Alice Smith', email: 'alice@example.com' } };
export const bob = { subjectId: 'sub-bob', username: 'bob', password: 'bob-password-1', claims: { name: 'Bob Jones' } };

export const webRedirect = 'https://web.example.com/callback';
export const spaRedirect = 'http://127.0.0.1/spa/callback';

export const signInClients: ClientConfig[] = [
  // Confidential web app. Secret: web-secret
  {
    clientId: 'web', clientName: 'Demo web app', clientSecrets: [{ value: hashSecret('web-secret') }],
    allowedGrantTypes: ['authorization_code', 'refresh_token'], allowedScopes: ['openid', 'profile', 'email', 'api1.read'],
    allowOfflineAccess: true, redirectUris: [webRedirect, 'https://web.example.com/other?tenant=1'], postLogoutRedirectUris: ['https://web.example.com/signed-out'],
  },
  // Public single-page app (PKCE, no secret) that asks for consent.
  {
    clientId: 'spa', clientName: 'Demo SPA', requireClientSecret: false, requireConsent: true,
    allowedGrantTypes: ['authorization_code'], allowedScopes: ['openid', 'profile', 'api1.read'], redirectUris: [spaRedirect],
    allowedCorsOrigins: ['http://127.0.0.1'],
  },
  { clientId: 'm2m', clientSecrets: [{ value: hashSecret('m2m-secret') }], allowedGrantTypes: ['client_credentials'], allowedScopes: ['api1.read'] },
];

let users: UserConfig['users'] | undefined;

/** The config every sign-in test starts from; cheap scrypt cost to keep tests fast. */
export async function signInConfig(overrides: Partial<UserConfig> = {}): Promise<UserConfig> {
  users ??= await Promise.all([alice, bob].map(async (u) => ({ ...u, password: await hashPassword(u.password, { ln: 4, r: 8, p: 1 }) })));
  return {
    apiScopes: [{ name: 'api1.read', description: 'Read your data in API 1' }],
    apiResources: [{ name: 'api1', scopes: ['api1.read'] }],
    identityResources: [
      { name: 'openid', claims: ['sub'] },
      { name: 'profile', description: 'Your name', claims: ['name'] },
      { name: 'email', description: 'Your email address', claims: ['email'] },
    ],
    users,
    clients: signInClients,
    ...overrides,
  };
}

export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export interface Page {
  status: number;
  html: string;
  headers: Headers;
  /** The `Location` of a redirect, absolute. */
  location: URL | undefined;
}

/** Every form on a page: its action and hidden fields. */
export function formsOf(html: string): Array<{ action: string; fields: Record<string, string> }> {
  return [...html.matchAll(/<form method="post" action="([^"]*)">([\s\S]*?)<\/form>/g)].map(([, action, body]) => ({
    action: unescapeHtml(action!),
    fields: Object.fromEntries([...body!.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)].map(([, n, v]) => [n!, unescapeHtml(v!)])),
  }));
}

function unescapeHtml(s: string): string {
  return s.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

/** A browser without JavaScript: keeps cookies, submits forms, does not follow redirects. */
export class Browser {
  readonly cookies = new Map<string, string>();
  /** `send`: the fetch to use, e.g. one over mutual TLS (`tls-fetch.ts`); default the global one. */
  constructor(readonly baseUrl: string, private readonly send: typeof fetch = fetch) {}

  private remember(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      const maxAge = /Max-Age=(\d+)/.exec(line)?.[1];
      if (maxAge === '0') this.cookies.delete(pair!.slice(0, eq));
      else this.cookies.set(pair!.slice(0, eq), pair!.slice(eq + 1));
    }
  }

  private headers(): Record<string, string> {
    return this.cookies.size ? { cookie: [...this.cookies].map(([n, v]) => `${n}=${v}`).join('; ') } : {};
  }

  private async read(res: Response): Promise<Page> {
    this.remember(res);
    const location = res.headers.get('location');
    // A relative Location is relative to the URL asked (another server's, in the upstream sign-in tests).
    return { status: res.status, html: await res.text(), headers: res.headers, location: location ? new URL(location, res.url || this.baseUrl) : undefined };
  }

  async get(url: string | URL): Promise<Page> {
    return this.read(await this.send(new URL(url, this.baseUrl), { headers: this.headers(), redirect: 'manual' }));
  }

  async post(url: string, fields: Record<string, string>): Promise<Page> {
    return this.read(await this.send(new URL(url, this.baseUrl), {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...this.headers() }, body: new URLSearchParams(fields), redirect: 'manual',
    }));
  }

  /** Submits form `index` of the page with its hidden fields plus `fields`. */
  submit(page: Page, fields: Record<string, string>, index = 0): Promise<Page> {
    const form = formsOf(page.html)[index];
    if (!form) throw new Error(`no form ${index} on the page (${page.status}):\n${page.html}`);
    return this.post(form.action, { ...form.fields, ...fields });
  }
}

export function authorizeUrl(server: TestServer, params: Record<string, string>): string {
  return `${server.url}/connect/authorize?${new URLSearchParams(params)}`;
}

export interface StartedFlow {
  params: Record<string, string>;
  verifier: string;
}

/** The parameters of a web client's authorization request, with a fresh PKCE pair, state and nonce. */
export function webRequest(extra: Record<string, string> = {}, clientId = 'web', redirectUri = webRedirect): StartedFlow {
  const { verifier, challenge } = pkce();
  return {
    verifier,
    params: {
      client_id: clientId, redirect_uri: redirectUri, response_type: 'code', scope: 'openid profile',
      state: randomBytes(8).toString('hex'), nonce: randomBytes(8).toString('hex'), code_challenge: challenge, code_challenge_method: 'S256',
      ...extra,
    },
  };
}

/** Opens the authorization URL, signs in (and approves when asked), returns the redirect. */
export async function signInAndAuthorize(
  server: TestServer, browser: Browser, params: Record<string, string>, user: { username: string; password: string } = alice,
): Promise<URL> {
  let page = await browser.get(authorizeUrl(server, params));
  if (page.html.includes('<h1>Sign in</h1>')) page = await browser.submit(page, { username: user.username, password: user.password });
  if (page.html.includes('<h1>Allow access?</h1>')) page = await browser.submit(page, { decision: 'approve' });
  if (page.status !== 303 || !page.location) throw new Error(`expected a redirect, got ${page.status}:\n${page.html}`);
  return page.location;
}

/** Trades a code at the token endpoint as the web client (Basic auth). */
export function redeemWeb(server: TestServer, code: string, verifier: string, extra: Record<string, string> = {}) {
  return postForm(`${server.url}/connect/token`, { grant_type: 'authorization_code', code, redirect_uri: webRedirect, code_verifier: verifier, ...extra }, {
    authorization: `Basic ${Buffer.from('web:web-secret').toString('base64')}`,
  });
}
