/**
 * GET/POST /device, the verification page (RFC 8628 §3.3), as Koa middleware: reads the
 * cookie and the form, runs the page's step (`src/device/verification-page.ts`), renders HTML
 * (`src/device/templates.ts`). The cookie, CSRF tokens and sign-in sessions are the ones every
 * page shares (`src/pages/page-parts.ts`). Every failure is an HTML page with a plain message;
 * nothing the user typed reaches a log line.
 */
import type { EventService } from '../events/event-service.js';
import type { Context, Middleware } from 'koa';
import type { ResolvedConfig } from '../config/schema.js';
import type { Clock, Logger, ResourceOwnerValidator } from '../sdk/contracts.js';
import type { Store } from '../store/store.js';
import { formBodyReader } from './read-form.js';
import { pageFailure } from './page-failure.js';
import { paths } from '../endpoints/urls.js';
import { createDeviceFlowStore } from '../device/device-flow-store.js';
import { userCodeScheme } from '../device/user-code.js';
import { createFailedAttempts, type FailedAttempts } from '../counters/failed-attempts.js';
import type { PasswordThrottle } from '../oauth/password-throttle.js';
import type { LoadPageParts, PageParts } from '../pages/page-parts.js';
import { readSessionCookie, sessionCookieLines } from './session-cookie.js';
import { pageHeaders } from '../pages/page-headers.js';
import { createVerificationPage, type PageOutcome, type VerificationPage } from '../device/verification-page.js';
import type { PageView } from '../pages/device-views.js';
import { renderPage, type RenderOptions } from '../device/templates.js';
import { choosePageText, pageLanguageTags } from '../pages/text/index.js';
import type { Lookup } from '../clients/client-directory.js';
import type { Client } from '../config/schema.js';

export interface DevicePageDeps {
  config: ResolvedConfig;
  /** Every client of every store (`src/clients`); default: the config's. */
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
  /** The cookie, CSRF and sign-in sessions every page shares. */
  pageParts: LoadPageParts;
}

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
  const headers = pageHeaders();

  let page: VerificationPage | undefined;
  function pageWith(parts: PageParts): VerificationPage {
    page ??= createVerificationPage({
      flows: createDeviceFlowStore({ store, clock }),
      userCodes,
      failedAttempts: deps.failedAttempts ?? createFailedAttempts({
        store, clock, maxFailures: config.deviceFlow.maxFailedAttempts, windowSeconds: config.deviceFlow.failedAttemptsWindow,
      }),
      passwordThrottle: deps.passwordThrottle,
      csrf: parts.csrf,
      sessions: parts.sessions,
      newBrowserId: parts.cookies.newId,
      users: deps.resourceOwnerValidator,
      clients: deps.clients ?? new Map(config.clients.map((c) => [c.clientId, c])),
      scopeDescriptions,
      clock,
      logger,
      events: deps.events,
    });
    return page;
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
    ctx.set(headers);
    ctx.set({ 'Content-Language': options.text.lang, Vary: 'Accept-Language' });
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = renderPage(view, options);
  }

  return async function devicePage(ctx: Context): Promise<void> {
    let outcome: PageOutcome;
    try {
      const parts = await deps.pageParts();
      // Two session cookies (cookie tossing): refused before any step, see `session-cookie.ts`.
      const reading = readSessionCookie(ctx, parts.cookies, logger, 'device page');
      if (reading.kind === 'conflict') {
        send(ctx, 400, { kind: 'message', message: 'cookies-conflict' });
        return;
      }
      const method = ctx.method === 'POST' ? 'POST' : 'GET';
      const form = method === 'POST' ? await readForm(ctx) : new Map<string, string>();
      outcome = await pageWith(parts)({
        method,
        queryUserCode: new URLSearchParams(ctx.querystring).get('user_code') ?? undefined,
        form,
        browserId: reading.kind === 'one' ? reading.id : undefined,
        remoteAddress: ctx.ip,
        requestId: ctx.state.requestId as string | undefined,
      });
      for (const line of sessionCookieLines(parts.cookies, reading, { browserId: outcome.browserId }, ctx.state.secureOrigin === true)) ctx.append('Set-Cookie', line);
    } catch (err) {
      const failed = pageFailure(err, ctx, logger, 'device page');
      if (failed.headers) ctx.set(failed.headers);
      send(ctx, failed.status, { kind: 'message', message: failed.message });
      return;
    }
    if (outcome.headers) ctx.set(outcome.headers);
    send(ctx, outcome.status, outcome.view);
  };
}
