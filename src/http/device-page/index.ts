/**
 * GET/POST /device, the verification page (RFC 8628 §3.3), as Koa middleware: reads the
 * cookie and the form, runs the page's step, renders HTML. Every failure is an HTML page with a
 * plain message; nothing the user typed reaches a log line.
 */
import type { EventService } from '../../events/event-service.js';
import type { Context, Middleware } from 'koa';
import type { ResolvedConfig } from '../../config/schema.js';
import type { Clock, Logger, ResourceOwnerValidator } from '../../sdk/contracts.js';
import { StoreUnavailableError, type Store } from '../../store/store.js';
import { isOAuthError } from '../../oauth/errors.js';
import { formBodyReader } from '../read-form.js';
import { paths } from '../../endpoints/urls.js';
import { createDeviceFlowStore } from '../../device/device-flow-store.js';
import { userCodeScheme } from '../../device/user-code.js';
import { createFailedAttempts, type FailedAttempts } from '../../device/failed-attempts.js';
import type { PasswordThrottle } from '../../oauth/password-throttle.js';
import { loadCookieSecret } from '../../device/cookie-secret.js';
import { createSessionCookies, type SessionCookies } from '../../device/session-cookie.js';
import { createCsrf } from '../../device/csrf.js';
import { createVerificationPage, type PageOutcome, type VerificationPage } from '../../device/verification-page.js';
import type { PageView } from '../../device/page-views.js';
import { renderPage, type RenderOptions } from './templates.js';
import { choosePageText, pageLanguageTags } from './text/index.js';
import { cssHash } from './styles.js';
import type { Lookup } from '../../clients/client-directory.js';
import type { Client } from '../../sdk/model.js';

export interface DevicePageDeps {
  config: ResolvedConfig;
  /** Every client of every store; default: the config's. */
  clients?: Lookup<Client>;
  store: Store;
  clock: Clock;
  logger: Logger;
  resourceOwnerValidator: ResourceOwnerValidator;
  events?: EventService;
  /** Wrong-code counts in a shared counter store (`counters`); in the store when absent. */
  failedAttempts?: FailedAttempts | undefined;
  /** Failed sign-ins, counted with the password grant's (`passwordThrottle`). */
  passwordThrottle: PasswordThrottle;
}

/** How long a sign-in on the page lasts. */
const sessionLifetimeSeconds = 3600;

const securityHeaders = {
  'Cache-Control': 'no-store',
  Pragma: 'no-cache',
  // The URL may carry a user code; it goes nowhere else.
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  // No framing: an approve button under someone else's page is a clickjacking target.
  'X-Frame-Options': 'DENY',
  'Content-Security-Policy': `default-src 'none'; style-src ${cssHash}; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
};

export function createDevicePage(deps: DevicePageDeps): Middleware {
  const { config, store, clock, logger } = deps;
  const userCodes = userCodeScheme(config.deviceFlow.userCodeFormat);
  const action = new URL(config.issuer + paths.devicePage).pathname;
  const numericCodes = userCodes.format === 'numeric';
  // Configured descriptions only; the page's text catalogue words standard scopes in each language.
  const scopeDescriptions = new Map<string, string | undefined>();
  for (const r of config.identityResources) scopeDescriptions.set(r.name, r.description);
  for (const s of config.apiScopes) scopeDescriptions.set(s.name, s.description);
  // A language chosen by ui_locales must survive the page's own forms and links; the supported
  // tag is carried, never the caller's text. Accept-Language comes again with every request.
  const actionFor = new Map(pageLanguageTags.map((tag) => [tag, `${action}?ui_locales=${encodeURIComponent(tag)}`]));
  // The same reader as every endpoint: flat parameters, duplicates rejected, unreadable bodies a 400.
  const readBody = formBodyReader(config.limits);

  // The secret may live in the store: read (or create) it on first use, and retry after a failure.
  let parts: Promise<{ cookies: SessionCookies; page: VerificationPage }> | undefined;
  function pageParts() {
    parts ??= loadCookieSecret({ configured: config.deviceFlow.cookieSecret, store, clock }).then((secret) => {
      const cookies = createSessionCookies({
        secret, secure: config.issuer.startsWith('https:'), path: action, lifetimeSeconds: sessionLifetimeSeconds,
      });
      const page = createVerificationPage({
        flows: createDeviceFlowStore({ store, clock }),
        userCodes,
        failedAttempts: deps.failedAttempts ?? createFailedAttempts({
          store, clock, maxFailures: config.deviceFlow.maxFailedAttempts, windowSeconds: config.deviceFlow.failedAttemptsWindow,
        }),
        passwordThrottle: deps.passwordThrottle,
        csrf: createCsrf(secret),
        newSession: (now, user) => cookies.create(now, user),
        users: deps.resourceOwnerValidator,
        clients: deps.clients ?? new Map(config.clients.map((c) => [c.clientId, c])),
        scopeDescriptions,
        clock,
        logger,
        events: deps.events,
      });
      return { cookies, page };
    });
    parts.catch(() => {
      parts = undefined;
    });
    return parts;
  }

  async function readForm(ctx: Context): Promise<Map<string, string>> {
    return ctx.request.is('application/x-www-form-urlencoded') ? readBody(ctx) : new Map();
  }

  function renderOptions(ctx: Context): RenderOptions {
    const uiLocales = new URLSearchParams(ctx.querystring).get('ui_locales') ?? undefined;
    const chosen = choosePageText(uiLocales, ctx.get('accept-language') || undefined);
    return { action: chosen.from === 'ui_locales' ? actionFor.get(chosen.tag)! : action, numericCodes, text: chosen.value };
  }

  function send(ctx: Context, status: number, view: PageView): void {
    const options = renderOptions(ctx);
    ctx.status = status;
    ctx.set(securityHeaders);
    ctx.set({ 'Content-Language': options.text.lang, Vary: 'Accept-Language' });
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = renderPage(view, options);
  }

  return async function devicePage(ctx: Context): Promise<void> {
    let outcome: PageOutcome;
    try {
      const { cookies, page } = await pageParts();
      const method = ctx.method === 'POST' ? 'POST' : 'GET';
      const form = method === 'POST' ? await readForm(ctx) : new Map<string, string>();
      outcome = await page({
        method,
        queryUserCode: new URLSearchParams(ctx.querystring).get('user_code') ?? undefined,
        form,
        session: cookies.read(ctx.get('cookie') || undefined, clock.now()),
        remoteAddress: ctx.ip,
        requestId: ctx.state.requestId as string | undefined,
      });
      if (outcome.session) ctx.append('Set-Cookie', cookies.serialize(outcome.session, clock.now(), ctx.state.secureOrigin === true));
    } catch (err) {
      send(ctx, ...failure(err, ctx, logger));
      return;
    }
    if (outcome.headers) ctx.set(outcome.headers);
    send(ctx, outcome.status, outcome.view);
  };
}

/** The page's answer to an error: a plain message, never a stack trace; the cause only in the log. */
function failure(err: unknown, ctx: Context, logger: Logger): [number, PageView] {
  const reqId = ctx.state.requestId as string | undefined;
  const status = (err as { status?: unknown }).status;
  if (isOAuthError(err) || (typeof status === 'number' && status >= 400 && status < 500)) {
    logger.info({ reqId, path: ctx.path, status }, 'device page: unreadable form');
    return [400, { kind: 'message', message: 'form-unreadable' }];
  }
  if (err instanceof StoreUnavailableError) {
    logger.warn({ reqId, path: ctx.path, detail: err.message }, 'device page: store unavailable');
    ctx.set('Retry-After', '5');
    return [503, { kind: 'message', message: 'unavailable' }];
  }
  logger.error({ reqId, path: ctx.path, err }, 'device page failed');
  return [500, { kind: 'message', message: 'failed' }];
}
