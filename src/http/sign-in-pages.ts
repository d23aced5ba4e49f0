/**
 * GET/POST /connect/authorize and the sign-in and consent pages' POSTs, as Koa middleware: reads
 * the query or form and the cookie, runs the flow (`src/authorize/authorize-flow.ts`), answers
 * with a page, a 303 redirect or a form_post page. Every failure is a page with a plain
 * message; nothing the user typed reaches a log line.
 */
import type { PasswordThrottle } from '../oauth/password-throttle.js';
import type { Context, Middleware } from 'koa';
import type { EventService } from '../events/event-service.js';
import type { ResolvedConfig } from '../config/schema.js';
import type { Clock, Logger, ResourceOwnerValidator, SignInPage } from '../sdk/contracts.js';
import type { Store } from '../store/store.js';
import { parseFormParams } from '../oauth/form-params.js';
import { isOAuthError } from '../oauth/errors.js';
import type { ScopeCatalog } from '../oauth/scopes.js';
import { paths } from '../endpoints/urls.js';
import type { Csrf } from '../pages/csrf.js';
import type { BrowserCookies, CookieReading } from '../pages/browser-cookie.js';
import type { SignInSessions } from '../pages/sign-in-sessions.js';
import type { LoadPageParts } from '../pages/page-parts.js';
import { readSessionCookie, sessionCookieLines } from './session-cookie.js';
import { pageHeaders } from '../pages/page-headers.js';
import { pageFailure } from './page-failure.js';
import { createRequestValidator } from '../authorize/authorization-request.js';
import { createAuthorizationCodes } from '../authorize/authorization-codes.js';
import { createInteractions } from '../authorize/interactions.js';
import type { InteractionLimit } from '../authorize/interaction-limit.js';
import { createPushedRequests } from '../authorize/pushed-requests.js';
import { createAuthorizeFlow, type AuthorizeFlow, type BrowserContext, type FlowOutcome } from '../authorize/authorize-flow.js';
import type { SignInView } from '../pages/sign-in-views.js';
import { createEndSession } from '../authorize/end-session.js';
import { readIdTokenHint } from '../authorize/id-token-hint.js';
import type { Lookup } from '../clients/client-directory.js';
import type { Client } from '../config/schema.js';
import type { KeyRing } from '../oauth/keys/key-ring.js';
import { formBodyReader } from './read-form.js';
import { renderFormPost, renderSignInPage, signInMessage, submitScriptHash, type SignInPaths } from '../authorize/templates.js';
import { choosePageText, type PageText } from '../pages/text/index.js';

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
  /** The cookie, CSRF and sign-in sessions every page shares. */
  pageParts: LoadPageParts;
  /** How many interactions may start, per address and in all (`interactionLimit`); default unlimited. */
  interactionLimit?: InteractionLimit | undefined;
}

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
  // Configured descriptions only; the text catalogue words standard scopes in each language.
  const scopeDescriptions = new Map<string, string | undefined>();
  for (const r of config.identityResources) scopeDescriptions.set(r.name, r.description);
  for (const s of config.apiScopes) scopeDescriptions.set(s.name, s.description);
  const readBody = formBodyReader(config.limits);
  const clients: Lookup<Client> = deps.clients ?? new Map(config.clients.map((c) => [c.clientId, c]));
  const validator = createRequestValidator({ clients, scopeCatalog: deps.scopeCatalog });
  const pushed = createPushedRequests({ store, clock });
  // OIDC Core §3.1.2.1 `id_token_hint` at the authorization endpoint.
  const readHint = (token: string) => readIdTokenHint(token, config.issuer, deps.keyRing, config.signing.idTokenAlgorithms);

  let parts: Promise<SignInParts> | undefined;
  function signInParts(): Promise<SignInParts> {
    parts ??= deps.pageParts().then(({ cookies, csrf, sessions }) => {
      const flow = createAuthorizeFlow({
        config, clients, validator, sessions, csrf, scopeDescriptions, clock, logger, events: deps.events,
        interactions: createInteractions({ store, clock, limit: deps.interactionLimit }),
        codes: createAuthorizationCodes({ store, clock }),
        pushed,
        users: deps.resourceOwnerValidator,
        passwordThrottle: deps.passwordThrottle,
        authenticate: deps.customPage?.authenticate?.bind(deps.customPage),
        external: deps.customPage?.externalSignIn,
        callbackUrl: config.issuer + paths.signInCallback,
        newBrowserId: cookies.newId,
        readHint,
      });
      const endSession = createEndSession({
        config, clients, sessions, csrf, logger, events: deps.events,
        readHint: (token) => readIdTokenHint(token, config.issuer, deps.keyRing, config.signing.idTokenAlgorithms),
      });
      return { cookies, csrf, sessions, flow, endSession };
    });
    parts.catch(() => {
      parts = undefined;
    });
    return parts;
  }

  function browserOf(ctx: Context, reading: CookieReading): BrowserContext {
    return { browserId: reading.kind === 'one' ? reading.id : undefined, remoteAddress: ctx.ip, requestId: ctx.state.requestId as string | undefined };
  }

  async function paramsOf(ctx: Context): Promise<Map<string, string>> {
    if (ctx.method !== 'POST') return parseFormParams(ctx.querystring, config.limits.parameters);
    return ctx.request.is('application/x-www-form-urlencoded') ? readBody(ctx) : new Map();
  }

  function send(ctx: Context, outcome: FlowOutcome, cookies: BrowserCookies | undefined, reading: CookieReading): void {
    const secureOrigin = ctx.state.secureOrigin === true;
    const answer = { browserId: outcome.browserId, clear: outcome.clearCookie };
    for (const line of cookies ? sessionCookieLines(cookies, reading, answer, secureOrigin) : []) ctx.append('Set-Cookie', line);
    const chosen = choosePageText(outcome.uiLocales ?? new URLSearchParams(ctx.querystring).get('ui_locales') ?? undefined, ctx.get('accept-language') || undefined);
    ctx.set({ 'Content-Language': chosen.value.lang, Vary: 'Accept-Language' });
    sendPage(ctx, outcome, pagePaths, chosen.value, deps.customPage);
  }

  /**
   * Runs `step` and answers; an unexpected failure is a plain page, its cause only in the log.
   * Two session cookies (`session-cookie.ts`) stop the request before any step: nobody is
   * signed in, consented or signed out on the strength of either.
   */
  function handler(step: (ctx: Context, parts: SignInParts, browser: BrowserContext) => Promise<FlowOutcome>): Middleware {
    return async (ctx) => {
      let signIn: SignInParts | undefined;
      let reading: CookieReading = { kind: 'none' };
      let outcome: FlowOutcome;
      try {
        signIn = await signInParts();
        reading = readSessionCookie(ctx, signIn.cookies, logger, 'sign-in page');
        outcome = reading.kind === 'conflict'
          ? { status: 400, view: { kind: 'message', message: 'cookies-conflict' } }
          : await step(ctx, signIn, browserOf(ctx, reading));
      } catch (err) {
        outcome = failure(err, ctx, logger);
      }
      send(ctx, outcome, signIn?.cookies, reading);
    };
  }

  return {
    /** The pages' form targets under the issuer's path. */
    pagePaths,
    validator,
    pushed,
    authorize: handler(async (ctx, { flow }, browser) => flow.authorize(await paramsOf(ctx), browser)),
    interaction: handler(async (ctx, { flow }, browser) => flow.interact(await paramsOf(ctx), browser)),
    endSession: handler(async (ctx, { endSession }, browser) => endSession(await paramsOf(ctx), browser, ctx.method === 'POST' ? 'POST' : 'GET')),
    /** The external identity provider's way back; only when a sign-in plugin brings one. */
    ...(deps.customPage?.externalSignIn
      ? { callback: handler(async (ctx, { flow }, browser) => flow.callback(await paramsOf(ctx), browser)) }
      : {}),
  };
}

export type SignInPages = ReturnType<typeof createSignInPages>;

export function sendPage(ctx: Context, outcome: FlowOutcome, pagePaths: SignInPaths, text: PageText, customPage?: SignInPage): void {
  const pluginPage = outcome.response ? undefined : renderByPlugin(outcome.view, customPage, pagePaths, text);
  ctx.set(pageHeaders({
    formTarget: outcome.redirectUri,
    scriptHash: outcome.response?.kind === 'form_post' ? submitScriptHash : undefined,
    styleSrc: pluginPage === undefined ? undefined : customPage?.styleSrc,
  }));
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
    ? renderFormPost(response.action, response.fields, text)
    : pluginPage ?? renderSignInPage(outcome.view!, pagePaths, text);
}

/** A plugin's document for the view, when the plugin replaces that page. */
function renderByPlugin(view: SignInView | undefined, page: SignInPage | undefined, pagePaths: SignInPaths, text: PageText): string | undefined {
  if (!page || !view) return undefined;
  switch (view.kind) {
    case 'sign-in':
      return page.render?.({
        lang: text.lang,
        action: pagePaths.interaction,
        hiddenFields: [['step', 'sign-in'], ['interaction', view.interaction], ['csrf', view.csrf]],
        clientId: view.clientId,
        clientName: view.clientName,
        username: view.username,
        message: signInMessage(view, text),
      });
    case 'consent':
      return page.renderConsent?.({
        lang: text.lang,
        action: pagePaths.interaction,
        hiddenFields: [['step', 'consent'], ['interaction', view.interaction], ['csrf', view.csrf]],
        clientId: view.clientId,
        clientName: view.clientName,
        scopes: view.scopes.map((s) => ({ name: s.name, description: s.description ?? text.scopes[s.name] })),
        username: view.username,
        unverified: view.unverified,
        returnTo: view.returnTo,
      });
    case 'logout':
      return page.renderLogout?.({ lang: text.lang, action: pagePaths.endSession, hiddenFields: [['csrf', view.csrf], ...view.fields] });
    default:
      return undefined;
  }
}

function failure(err: unknown, ctx: Context, logger: Logger): FlowOutcome {
  // A limit (`interactionLimit`): a page a person can read, with the standard 429 and Retry-After.
  if (isOAuthError(err) && err.status === 429) {
    logger.info({ reqId: ctx.state.requestId as string | undefined, address: ctx.ip, detail: err.logDetail }, 'sign-in page: rate limited');
    return { status: 429, view: { kind: 'message', message: 'too-many-requests' }, headers: err.headers };
  }
  const failed = pageFailure(err, ctx, logger, 'sign-in page');
  const message = failed.message === 'form-unreadable' ? 'request-unreadable' : failed.message;
  return { status: failed.status, view: { kind: 'message', message }, ...(failed.headers ? { headers: failed.headers } : {}) };
}
