/**
 * GET/POST /connect/authorize and the sign-in and consent pages' POSTs, as Koa middleware: reads
 * the query or form and the cookie, runs the flow (`src/authorize/authorize-flow.ts`), answers
 * with a page, a 303 redirect or a form_post page. Every failure is a page with a plain
 * message; nothing the user typed reaches a log line.
 */
import type { PasswordThrottle } from '../../oauth/password-throttle.js';
import type { Context, Middleware } from 'koa';
import type { EventService } from '../../events/event-service.js';
import type { ResolvedConfig } from '../../config/schema.js';
import type { Clock, Logger, ResourceOwnerValidator, SignInPage, SignInPageView } from '../../sdk/contracts.js';
import { StoreUnavailableError, type Store } from '../../store/store.js';
import { isOAuthError } from '../../oauth/errors.js';
import { parseFormParams } from '../../oauth/form-params.js';
import { offlineAccess, type ScopeCatalog } from '../../oauth/scopes.js';
import { paths } from '../../endpoints/urls.js';
import { loadCookieSecret } from '../../device/cookie-secret.js';
import { createCsrf, type Csrf } from '../../device/csrf.js';
import { createBrowserCookies, type BrowserCookies } from '../../session/browser-cookie.js';
import { createSignInSessions, type SignInSessions } from '../../session/sign-in-sessions.js';
import { createRequestValidator } from '../../authorize/authorization-request.js';
import { createAuthorizationCodes } from '../../authorize/authorization-codes.js';
import { createInteractions } from '../../authorize/interactions.js';
import { createPushedRequests } from '../../authorize/pushed-requests.js';
import { createAuthorizeFlow, type AuthorizeFlow, type BrowserContext, type FlowOutcome } from '../../authorize/authorize-flow.js';
import type { SignInView } from '../../authorize/views.js';
import { createEndSession } from '../../authorize/end-session.js';
import { readIdTokenHint } from '../../authorize/id-token-hint.js';
import type { KeyRing } from '../../oauth/keys/key-ring.js';
import { formBodyReader } from '../read-form.js';
import { cssHash } from '../device-page/styles.js';
import { renderFormPost, renderSignInPage, submitScriptHash, type SignInPaths } from './templates.js';
import type { Lookup } from '../../clients/client-directory.js';
import type { Client } from '../../sdk/model.js';

export interface SignInPageDeps {
  config: ResolvedConfig;
  /** Every client of every store (`src/clients`); default: the config's. */
  clients?: Lookup<Client>;
  store: Store;
  clock: Clock;
  logger: Logger;
  resourceOwnerValidator: ResourceOwnerValidator;
  scopeCatalog: ScopeCatalog;
  keyRing: Pick<KeyRing, 'verificationKey'>;
  events?: EventService | undefined;
  /** A plugin's sign-in page in place of the built-in one. */
  customPage?: SignInPage | undefined;
  /** Failed sign-ins, counted with the password grant's (`passwordThrottle`). */
  passwordThrottle: PasswordThrottle;
}

/** How long a sign-in lasts (IdentityServer's cookie default is 10 hours). */
export const sessionLifetimeSeconds = 10 * 3600;

const defaultScopeDescriptions: Record<string, string> = {
  openid: 'Know who you are (your user id)',
  [offlineAccess]: 'Keep access when you are not using it',
};

/** The parts that need the cookie secret, which may live in the store. */
export interface SignInParts {
  readonly cookies: BrowserCookies;
  readonly csrf: Csrf;
  readonly sessions: SignInSessions;
  readonly flow: AuthorizeFlow;
  readonly endSession: ReturnType<typeof createEndSession>;
}

export function createSignInPages(deps: SignInPageDeps) {
  const { config, store, clock, logger } = deps;
  const issuerPath = new URL(config.issuer).pathname.replace(/\/$/, '');
  const pagePaths: SignInPaths = { interaction: issuerPath + paths.signIn, endSession: issuerPath + paths.endSession };
  const scopeDescriptions = new Map<string, string | undefined>(Object.entries(defaultScopeDescriptions));
  for (const r of config.identityResources) scopeDescriptions.set(r.name, r.description ?? scopeDescriptions.get(r.name));
  for (const s of config.apiScopes) scopeDescriptions.set(s.name, s.description);
  const readBody = formBodyReader(config.limits);
  const clients: Lookup<Client> = deps.clients ?? new Map(config.clients.map((c) => [c.clientId, c]));
  const validator = createRequestValidator({ clients, scopeCatalog: deps.scopeCatalog });
  const pushed = createPushedRequests({ store, clock });

  let parts: Promise<SignInParts> | undefined;
  function signInParts(): Promise<SignInParts> {
    parts ??= loadCookieSecret({ configured: config.deviceFlow.cookieSecret, store, clock }).then((secret) => {
      const cookies = createBrowserCookies({ secret, secure: config.issuer.startsWith('https:'), path: issuerPath || '/' });
      const csrf = createCsrf(secret);
      const sessions = createSignInSessions({ store, clock, lifetimeSeconds: sessionLifetimeSeconds });
      const flow = createAuthorizeFlow({
        config, clients, validator, sessions, csrf, scopeDescriptions, clock, logger, events: deps.events,
        interactions: createInteractions({ store, clock }),
        codes: createAuthorizationCodes({ store, clock }),
        pushed,
        users: deps.resourceOwnerValidator,
        passwordThrottle: deps.passwordThrottle,
        authenticate: deps.customPage?.authenticate?.bind(deps.customPage),
        newBrowserId: cookies.newId,
      });
      const endSession = createEndSession({
        config, clients, sessions, csrf, logger, events: deps.events,
        readHint: (token) => readIdTokenHint(token, config.issuer, deps.keyRing),
      });
      return { cookies, csrf, sessions, flow, endSession };
    });
    parts.catch(() => {
      parts = undefined;
    });
    return parts;
  }

  function browserOf(ctx: Context, cookies: BrowserCookies): BrowserContext {
    return { browserId: cookies.read(ctx.get('cookie') || undefined), remoteAddress: ctx.ip, requestId: ctx.state.requestId as string | undefined };
  }

  async function paramsOf(ctx: Context): Promise<Map<string, string>> {
    if (ctx.method !== 'POST') return parseFormParams(ctx.querystring, config.limits.parameters);
    return ctx.request.is('application/x-www-form-urlencoded') ? readBody(ctx) : new Map();
  }

  function send(ctx: Context, outcome: FlowOutcome, cookies: BrowserCookies | undefined): void {
    if (outcome.browserId && cookies) ctx.append('Set-Cookie', cookies.serialize(outcome.browserId, sessionLifetimeSeconds));
    else if (outcome.clearCookie && cookies) ctx.append('Set-Cookie', cookies.serialize('', 0));
    sendPage(ctx, outcome, pagePaths, deps.customPage);
  }

  /** Runs `step` and answers; an unexpected failure is a plain page, its cause only in the log. */
  function handler(step: (ctx: Context, parts: SignInParts) => Promise<FlowOutcome>): Middleware {
    return async (ctx) => {
      let signIn: SignInParts | undefined;
      let outcome: FlowOutcome;
      try {
        signIn = await signInParts();
        outcome = await step(ctx, signIn);
      } catch (err) {
        outcome = failure(err, ctx, logger);
      }
      send(ctx, outcome, signIn?.cookies);
    };
  }

  return {
    signInParts,
    pagePaths,
    validator,
    pushed,
    authorize: handler(async (ctx, { cookies, flow }) => flow.authorize(await paramsOf(ctx), browserOf(ctx, cookies))),
    interaction: handler(async (ctx, { cookies, flow }) => flow.interact(await paramsOf(ctx), browserOf(ctx, cookies))),
    endSession: handler(async (ctx, { cookies, endSession }) =>
      endSession(await paramsOf(ctx), browserOf(ctx, cookies), ctx.method === 'POST' ? 'POST' : 'GET')),
  };
}

export type SignInPages = ReturnType<typeof createSignInPages>;

/** The origin a page's forms and redirects may reach besides its own (CSP form-action also governs redirects). */
function formTarget(uri: string | undefined): string {
  if (uri === undefined) return '';
  try {
    const url = new URL(uri);
    return url.origin !== 'null' ? ` ${url.origin}` : ` ${url.protocol}`;
  } catch {
    return '';
  }
}

function headersFor(target: string | undefined, script = false, styleSrc = ''): Record<string, string> {
  return {
    'Cache-Control': 'no-store',
    Pragma: 'no-cache',
    'Referrer-Policy': 'no-referrer',
    'X-Content-Type-Options': 'nosniff',
    // RFC 9700 §4.16: no framing of the sign-in and consent pages (clickjacking).
    'X-Frame-Options': 'DENY',
    'Content-Security-Policy': `default-src 'none'; style-src ${cssHash}${styleSrc ? ` ${styleSrc}` : ''};${script ? ` script-src ${submitScriptHash};` : ''} form-action 'self'${formTarget(target)}; frame-ancestors 'none'; base-uri 'none'`,
  };
}

export function sendPage(ctx: Context, outcome: FlowOutcome, pagePaths: SignInPaths, customPage?: SignInPage): void {
  const custom = outcome.view?.kind === 'sign-in' ? customPage : undefined;
  ctx.set(headersFor(outcome.redirectUri, outcome.response?.kind === 'form_post', custom?.styleSrc));
  if (outcome.headers) ctx.set(outcome.headers);
  const response = outcome.response;
  if (response?.kind === 'redirect') {
    // RFC 9700 §4.12: 303, so a POSTed password is never re-sent to the client.
    ctx.status = 303;
    ctx.set('Location', response.location);
    ctx.body = '';
    return;
  }
  ctx.status = outcome.status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = response?.kind === 'form_post'
    ? renderFormPost(response.action, response.fields)
    : custom && outcome.view?.kind === 'sign-in'
      ? custom.render(pluginView(outcome.view, pagePaths))
      : renderSignInPage(outcome.view!, pagePaths);
}

/** The sign-in step as a plugin page sees it. */
function pluginView(view: Extract<SignInView, { kind: 'sign-in' }>, pagePaths: SignInPaths): SignInPageView {
  return {
    action: pagePaths.interaction,
    hiddenFields: [['step', 'sign-in'], ['interaction', view.interaction], ['csrf', view.csrf]],
    clientId: view.clientId,
    clientName: view.clientName,
    username: view.username,
    message: view.message,
  };
}

function failure(err: unknown, ctx: Context, logger: Logger): FlowOutcome {
  const reqId = ctx.state.requestId as string | undefined;
  const status = (err as { status?: unknown }).status;
  const page = (s: number, title: string, text: string): FlowOutcome => ({ status: s, view: { kind: 'message', title, text } satisfies SignInView });
  if (isOAuthError(err) || (typeof status === 'number' && status >= 400 && status < 500)) {
    logger.info({ reqId, path: ctx.path, status, detail: isOAuthError(err) ? err.logDetail : undefined }, 'sign-in page: unreadable request');
    return page(400, 'This sign-in link is not valid', 'The request could not be read. Go back to the application and start again.');
  }
  if (err instanceof StoreUnavailableError) {
    logger.warn({ reqId, path: ctx.path, detail: err.message }, 'sign-in page: store unavailable');
    return { ...page(503, 'Temporarily unavailable', 'The service is temporarily unavailable. Try again in a moment.'), headers: { 'Retry-After': '5' } };
  }
  logger.error({ reqId, path: ctx.path, err }, 'sign-in page failed');
  return page(500, 'Something went wrong', 'Something went wrong on our side. Try again in a moment.');
}
