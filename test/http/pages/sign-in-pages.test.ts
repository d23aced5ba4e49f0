/**
 * The sign-in pages' Koa adapter without a server: its handlers are Koa middleware, driven here
 * with a plain object in place of Koa's context (only the members the adapter touches). GETs and
 * POSTs without a form body can be driven this way; a POST with a form body reads Node's request
 * stream (`formBodyReader`) and stays with the end-to-end tests. `sendPage` is driven the same way.
 */
import type { Context } from 'koa';
import { beforeEach, describe, expect, it } from 'vitest';
import type { SentOutcome as FlowOutcome } from '../../../src/authorize/authorize-flow.js';
import type { SignInPaths } from '../../../src/pages/sign-in-templates.js';
import { resolveConfig } from '../../../src/config/resolve.js';
import { authorizationRequestsOf, scopeDescriptionsOf, signInPartsLoader } from '../../../src/app/page-wiring.js';
import { timeOrderedFamilies } from '../../../src/oauth/grant-family.js';
import { createPushedRequests } from '../../../src/authorize/pushed-requests.js';
import { createSignInPages, sendPage, type SignInPages } from '../../../src/http/pages/sign-in-pages.js';
import { createPasswordThrottle } from '../../../src/throttling/password-throttle.js';
import { createBrowserCookies } from '../../../src/pages/browser-cookie.js';
import { createCsrf } from '../../../src/pages/csrf.js';
import type { PageParts } from '../../../src/pages/page-parts.js';
import { createSignInSessions } from '../../../src/sessions/sign-in-sessions.js';
import { choosePageText } from '../../../src/pages/text/index.js';
import type { Logger, SignInPage } from '../../../src/sdk/index.js';
import { createMemoryStore } from '../../../src/store/memory-store.js';
import { StoreUnavailableError } from '../../../src/store/store.js';

const ISSUER = 'https://issuer.example/tenant-a';
const NOW = Date.UTC(2030, 0, 1, 12, 0, 0);
const config = resolveConfig({
  issuer: ISSUER,
  identityResources: [{ name: 'openid', claims: ['sub'] }],
  clients: [{ clientId: 'web', clientName: 'Web shop', clientSecrets: [{ value: 'x' }], allowedGrantTypes: ['authorization_code'], allowedScopes: ['openid'], redirectUris: ['https://web.example/cb'], requirePkce: false }],
}, '/');

/** The members of Koa's context the adapter reads and writes, and what it answered. */
class FakeContext {
  status = 404;
  type = '';
  body: unknown = undefined;
  readonly state: Record<string, unknown> = { requestId: 'req-7' };
  readonly response = new Map<string, string | string[]>();
  readonly ip = '10.0.0.1';
  readonly path: string;
  readonly querystring: string;
  readonly request: { is(type: string): string | false };
  constructor(readonly method: 'GET' | 'POST', url: string, private readonly headers: Record<string, string> = {}) {
    const [path, query = ''] = url.split('?');
    this.path = path!;
    this.querystring = query;
    const contentType = headers['content-type'];
    this.request = { is: (type) => (contentType === type ? type : false) };
  }
  get(name: string): string {
    return this.headers[name.toLowerCase()] ?? '';
  }
  set(name: string | Record<string, string>, value?: string): void {
    if (typeof name === 'string') this.response.set(name.toLowerCase(), value!);
    else for (const [k, v] of Object.entries(name)) this.response.set(k.toLowerCase(), v);
  }
  append(name: string, value: string): void {
    const existing = this.response.get(name.toLowerCase());
    this.response.set(name.toLowerCase(), existing === undefined ? [value] : [...[existing].flat(), value]);
  }
  header(name: string): string | string[] | undefined {
    return this.response.get(name.toLowerCase());
  }
  get html(): string {
    return String(this.body);
  }
}

const noNext = async () => {};
const run = async (middleware: (ctx: Context, next: () => Promise<void>) => unknown, ctx: FakeContext) => {
  await middleware(ctx as unknown as Context, noNext);
  return ctx;
};
const query = (params: Record<string, string>) => new URLSearchParams(params).toString();
const authorizeUrl = (params: Record<string, string> = {}) =>
  `/tenant-a/connect/authorize?${query({ client_id: 'web', redirect_uri: 'https://web.example/cb', response_type: 'code', scope: 'openid', state: 'st', ...params })}`;

interface Line { level: string; obj: Record<string, unknown>; msg: string | undefined }
let lines: Line[];
let parts: PageParts;
let failNextParts: Error | undefined;
let pages: SignInPages;

beforeEach(() => {
  lines = [];
  const at = (level: string) => (obj: object, msg?: string) => void lines.push({ level, obj: obj as Record<string, unknown>, msg });
  const logger: Logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), child: () => logger };
  const clock = { now: () => NOW };
  const store = createMemoryStore(clock);
  const secret = Buffer.alloc(32, 3);
  parts = {
    cookies: createBrowserCookies({ secret, secure: true, path: '/tenant-a' }),
    csrf: createCsrf(secret),
    sessions: createSignInSessions({ store, clock, lifetimeSeconds: 3600 }),
  };
  failNextParts = undefined;
  const clients = new Map(config.clients.map((c) => [c.clientId, c]));
  const scopeCatalog = { apiScopes: new Set<string>(), identityScopes: new Set(['openid']) };
  pages = createSignInPages({
    issuer: config.issuer, limits: config.limits, logger,
    // The composition root's wiring, with plain objects in place of the container's services.
    signInParts: signInPartsLoader({
      config, clients, store, clock, logger, families: timeOrderedFamilies,
      validator: authorizationRequestsOf(clients, scopeCatalog),
      pushed: createPushedRequests({ store, clock }),
      scopeDescriptions: scopeDescriptionsOf(config),
      resourceOwnerValidator: { validate: async () => undefined, findBySubject: async () => ({ subjectId: 'alice-sub', username: 'alice' }) },
      keyRing: { verificationKey: async () => undefined },
      passwordThrottle: createPasswordThrottle({ pairThreshold: 5, userThreshold: 10, addressThreshold: 50, maxDelay: 60, window: 900 }),
      pageParts: async () => {
        const failure = failNextParts;
        failNextParts = undefined;
        if (failure) throw failure;
        return parts;
      },
    }),
  });
});

describe('paths', () => {
  it("puts the pages' form targets under the issuer's path", () => {
    expect(pages.pagePaths).toEqual({ interaction: '/tenant-a/connect/authorize/sign-in', endSession: '/tenant-a/connect/endsession', home: '/tenant-a/' });
  });
});

describe('GET /connect/authorize', () => {
  it('shows the unknown-client page with status 400, no cookie and the page headers', async () => {
    const ctx = await run(pages.authorize, new FakeContext('GET', authorizeUrl({ client_id: 'nobody' })));
    expect(ctx.status).toBe(400);
    expect(ctx.type).toBe('text/html; charset=utf-8');
    expect(ctx.html).toContain('This sign-in link is not valid');
    expect(ctx.header('set-cookie')).toBeUndefined();
    expect(ctx.header('cache-control')).toBe('no-store');
    expect(ctx.header('x-frame-options')).toBe('DENY');
    expect(ctx.header('content-language')).toBe('en');
    expect(ctx.header('vary')).toBe('Accept-Language');
  });

  it('shows the sign-in page, sets the session cookie, and lets the form reach the redirect URI’s origin only', async () => {
    const ctx = await run(pages.authorize, new FakeContext('GET', authorizeUrl()));
    expect(ctx.status).toBe(200);
    expect(ctx.html).toContain('action="/tenant-a/connect/authorize/sign-in"');
    expect(ctx.html).toContain('Web shop');
    const cookie = ctx.header('set-cookie') as string[];
    expect(cookie).toHaveLength(1);
    // An https issuer: the `__Host-` cookie (Path=/, Secure), named for the issuer's path (cookie tossing).
    expect(cookie[0]).toMatch(/^__Host-svc_session-[\w-]{8}=[^;]+;.*Path=\/;.*Secure/);
    expect(ctx.header('content-security-policy')).toContain("form-action 'self' https://web.example;");
  });

  it('speaks the language of ui_locales, else of Accept-Language', async () => {
    const byHeader = await run(pages.authorize, new FakeContext('GET', authorizeUrl({ client_id: 'nobody' }), { 'accept-language': 'de-DE,de;q=0.9' }));
    expect(byHeader.header('content-language')).toBe('de');
    expect(byHeader.html).toContain('Dieser Anmeldelink ist ungültig');
    const byParameter = await run(pages.authorize, new FakeContext('GET', authorizeUrl({ ui_locales: 'en' }), { 'accept-language': 'de' }));
    expect(byParameter.header('content-language')).toBe('en');
  });

  it('redirects a signed-in browser with 303 and the code, without a body', async () => {
    await parts.sessions.start('browser-a', 'alice-sub');
    const cookie = parts.cookies.serialize('browser-a', 3600).split(';')[0]!;
    const ctx = await run(pages.authorize, new FakeContext('GET', authorizeUrl(), { cookie }));
    expect(ctx.status).toBe(303);
    expect(ctx.body).toBe('');
    const location = new URL(ctx.header('location') as string);
    expect(location.origin + location.pathname).toBe('https://web.example/cb');
    expect(location.searchParams.get('code')).toEqual(expect.any(String));
    expect(location.searchParams.get('iss')).toBe(ISSUER);
  });

  it('answers response_mode=form_post with a self-submitting form allowed by its script hash', async () => {
    await parts.sessions.start('browser-a', 'alice-sub');
    const cookie = parts.cookies.serialize('browser-a', 3600).split(';')[0]!;
    const ctx = await run(pages.authorize, new FakeContext('GET', authorizeUrl({ response_mode: 'form_post' }), { cookie }));
    expect(ctx.status).toBe(200);
    expect(ctx.html).toContain('action="https://web.example/cb"');
    expect(ctx.html).toMatch(/name="code" value="[^"]+"/);
    expect(ctx.header('content-security-policy')).toMatch(/script-src 'sha256-[^']+'/);
  });

  it('answers 503 with Retry-After when the page parts cannot load (store down), and recovers on the next request', async () => {
    failNextParts = new StoreUnavailableError('store down');
    const down = await run(pages.authorize, new FakeContext('GET', authorizeUrl()));
    expect(down.status).toBe(503);
    expect(down.header('retry-after')).toBe('5');
    expect(down.html).toContain('Temporarily unavailable');
    expect(lines).toContainEqual(expect.objectContaining({ level: 'warn', msg: 'sign-in page: store unavailable' }));
    const up = await run(pages.authorize, new FakeContext('GET', authorizeUrl()));
    expect(up.status).toBe(200);
  });

  it('answers an unexpected failure with a plain 500 page; the cause goes only to the log', async () => {
    failNextParts = new Error('secret database password is hunter2');
    const ctx = await run(pages.authorize, new FakeContext('GET', authorizeUrl()));
    expect(ctx.status).toBe(500);
    expect(ctx.html).not.toContain('hunter2');
    expect(lines).toContainEqual(expect.objectContaining({ level: 'error', msg: 'sign-in page failed', obj: expect.objectContaining({ reqId: 'req-7' }) }));
  });
});

describe('POST of the sign-in page', () => {
  it('answers a POST that is not a form with the start-again page (400)', async () => {
    const ctx = await run(pages.interaction, new FakeContext('POST', '/tenant-a/connect/authorize/sign-in', { 'content-type': 'application/json' }));
    expect(ctx.status).toBe(400);
    expect(ctx.html).toContain('Please start again');
  });
});

describe('sendPage', () => {
  const paths: SignInPaths = { interaction: '/connect/authorize/sign-in', endSession: '/connect/endsession' };
  const en = choosePageText('en', undefined).value;
  const signInView = { kind: 'sign-in', interaction: 'i-1', csrf: 'c-1', clientId: 'web', clientName: 'Web shop', username: 'alice' } as const;

  it('passes the outcome’s own headers (Retry-After of a throttled sign-in)', () => {
    const ctx = new FakeContext('POST', '/');
    const outcome: FlowOutcome = { status: 429, view: { ...signInView, notice: 'too-many-sign-ins' }, headers: { 'Retry-After': '30' } };
    sendPage(ctx as unknown as Context, outcome, paths, en);
    expect(ctx.status).toBe(429);
    expect(ctx.header('retry-after')).toBe('30');
    expect(ctx.html).toContain('Too many failed sign-ins');
  });

  it("renders a plugin's sign-in page in place of the built-in one, with the hidden fields it must post", () => {
    const ctx = new FakeContext('GET', '/');
    const seen: unknown[] = [];
    const plugin: SignInPage = { render: (view) => (seen.push(view), '<p>plugin page</p>'), styleSrc: 'https://cdn.example' };
    sendPage(ctx as unknown as Context, { status: 200, view: signInView }, paths, en, plugin);
    expect(ctx.html).toBe('<p>plugin page</p>');
    expect(seen).toEqual([expect.objectContaining({ action: '/connect/authorize/sign-in', hiddenFields: [['step', 'sign-in'], ['interaction', 'i-1'], ['csrf', 'c-1']], username: 'alice' })]);
    expect(ctx.header('content-security-policy')).toContain('https://cdn.example');
  });

  it("keeps the built-in page for views the plugin does not render, and then no plugin styles", () => {
    const ctx = new FakeContext('GET', '/');
    const plugin: SignInPage = { render: () => '<p>plugin page</p>', styleSrc: 'https://cdn.example' };
    sendPage(ctx as unknown as Context, { status: 400, view: { kind: 'message', message: 'start-again' } }, paths, en, plugin);
    expect(ctx.html).toContain('Please start again');
    expect(ctx.header('content-security-policy')).not.toContain('https://cdn.example');
  });
});
