/**
 * GET/POST /connect/authorize and the sign-in and consent pages' POSTs, as Koa middleware: reads
 * the query or form and the cookie, runs the flow (`src/authorize/authorize-flow.ts`), answers
 * with a page, a 303 redirect or a form_post page. Every failure is a page with a plain
 * message; nothing the user typed reaches a log line.
 */
import { passkeyScriptHash } from '../../pages/passkey-script.js';
import type { Context, Middleware } from 'koa';
import type { ResolvedConfig } from '../../config/schema.js';
import type { Logger, SignInPage } from '../../sdk/contracts.js';
import { parseFormParams } from '../../oauth/form-params.js';
import { isOAuthError } from '../../oauth/errors.js';
import { paths } from '../../endpoints/urls.js';
import type { Csrf } from '../../pages/csrf.js';
import type { BrowserCookies, CookieReading } from '../../pages/browser-cookie.js';
import type { SignInSessions } from '../../sessions/sign-in-sessions.js';
import { readSessionCookie, sessionCookieLines } from '../session-cookie.js';
import { pageHeaders } from '../../pages/page-headers.js';
import { pageFailure } from './page-failure.js';
import type { AuthorizeFlow, BrowserContext, SentOutcome } from '../../authorize/authorize-flow.js';
import type { SignInView } from '../../pages/sign-in-views.js';
import type { createEndSession, createEndSessionReturn } from '../../authorize/end-session.js';
import { formBodyReader } from '../read-form.js';
import { renderFormPost, renderSignInPage, signInMessage, submitScriptHash, type SignInPaths } from '../../pages/sign-in-templates.js';
import { choosePageText, type PageText } from '../../pages/text/index.js';
import { describeScope } from '../../pages/scope-description.js';
import { defaultBranding, type Branding } from '../../pages/branding.js';

/** What the pages run, built by the composition root (`src/app/page-wiring.ts`) once the page secret is known. */
export interface SignInParts {
  readonly cookies: BrowserCookies;
  readonly csrf: Csrf;
  readonly sessions: SignInSessions;
  readonly flow: AuthorizeFlow;
  readonly endSession: ReturnType<typeof createEndSession>;
  /** Issue 34: back from an upstream provider's logout. */
  readonly endSessionReturn: ReturnType<typeof createEndSessionReturn>;
}

/** Built on the first request; a failure (the store down) is a page, and the next request tries again. */
export type LoadSignInParts = () => Promise<SignInParts>;

export interface SignInPageDeps {
  /** The issuer, under whose path the pages' forms post. */
  issuer: string;
  limits: ResolvedConfig['limits'];
  logger: Logger;
  /** A plugin's sign-in page in place of the built-in one. */
  customPage?: SignInPage | undefined;
  signInParts: LoadSignInParts;
  /** The deployment's look and templates (`pages` in the config); default the built-in ones. */
  branding?: Branding | undefined;
  /** Issue 34: `smtp` is configured, so the sign-in form links "Forgot password?". */
  forgotPassword?: boolean | undefined;
}

export function createSignInPages(deps: SignInPageDeps) {
  const { logger, limits, signInParts } = deps;
  const issuerPath = new URL(deps.issuer).pathname.replace(/\/$/, '');
  const pagePaths: SignInPaths = {
    interaction: issuerPath + paths.signIn, endSession: issuerPath + paths.endSession, home: issuerPath + '/',
    ...(deps.forgotPassword ? { forgotPassword: issuerPath + paths.accountPasswordReset } : {}),
  };
  const readBody = formBodyReader(limits);

  function browserOf(ctx: Context, reading: CookieReading): BrowserContext {
    return { browserId: reading.kind === 'one' ? reading.id : undefined, remoteAddress: ctx.ip, requestId: ctx.state.requestId as string | undefined };
  }

  async function paramsOf(ctx: Context): Promise<Map<string, string>> {
    if (ctx.method !== 'POST') return parseFormParams(ctx.querystring, limits.parameters);
    return ctx.request.is('application/x-www-form-urlencoded') ? readBody(ctx) : new Map();
  }

  function send(ctx: Context, outcome: SentOutcome, cookies: BrowserCookies | undefined, reading: CookieReading): void {
    const secureOrigin = ctx.state.secureOrigin === true;
    const answer = { browserId: outcome.browserId, clear: outcome.clearCookie };
    for (const line of cookies ? sessionCookieLines(cookies, reading, answer, secureOrigin) : []) ctx.append('Set-Cookie', line);
    const chosen = choosePageText(outcome.uiLocales ?? new URLSearchParams(ctx.querystring).get('ui_locales') ?? undefined, ctx.get('accept-language') || undefined);
    ctx.set({ 'Content-Language': chosen.value.lang, Vary: 'Accept-Language' });
    sendPage(ctx, outcome, pagePaths, chosen.value, deps.customPage, deps.branding);
  }

  /**
   * Runs `step` and answers; an unexpected failure is a plain page, its cause only in the log.
   * Two session cookies (`session-cookie.ts`) stop the request before any step: nobody is
   * signed in, consented or signed out on the strength of either.
   */
  function handler(step: (ctx: Context, parts: SignInParts, browser: BrowserContext) => Promise<SentOutcome>): Middleware {
    return async (ctx) => {
      let signIn: SignInParts | undefined;
      let reading: CookieReading = { kind: 'none' };
      let outcome: SentOutcome;
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
    authorize: handler(async (ctx, { flow }, browser) => flow.authorize(await paramsOf(ctx), browser)),
    interaction: handler(async (ctx, { flow }, browser) => flow.interact(await paramsOf(ctx), browser)),
    endSession: handler(async (ctx, { endSession }, browser) => endSession(await paramsOf(ctx), browser, ctx.method === 'POST' ? 'POST' : 'GET')),
    endSessionReturn: handler(async (ctx, { endSessionReturn }) => endSessionReturn(await paramsOf(ctx))),
    /** The external identity provider's way back; only when a sign-in plugin brings one. */
    ...(deps.customPage?.externalSignIn
      ? { callback: handler(async (ctx, { flow }, browser) => flow.callback(await paramsOf(ctx), browser)) }
      : {}),
  };
}

export type SignInPages = ReturnType<typeof createSignInPages>;

export function sendPage(ctx: Context, outcome: SentOutcome, pagePaths: SignInPaths, text: PageText, customPage?: SignInPage, branding: Branding = defaultBranding): void {
  const pluginPage = outcome.response ? undefined : renderByPlugin(outcome.view, customPage, pagePaths, text);
  ctx.set(pageHeaders({
    // A plugin's page is its own document: our look's sources are not in it.
    branding: pluginPage === undefined ? branding : undefined,
    formTarget: outcome.redirectUri,
    formTargets: outcome.formTargets,
    scriptHash: outcome.response?.kind === 'form_post' ? submitScriptHash : pluginPage === undefined && hasPasskeyForm(outcome.view) ? passkeyScriptHash() : undefined,
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
    ? renderFormPost(response.action, response.fields, text, branding)
    : pluginPage ?? renderSignInPage(withReference(outcome, ctx), pagePaths, text, branding);
}

/** A refusal or failure page carries the request id, which the log line about it carries too. */
function withReference(outcome: SentOutcome, ctx: Context): SignInView {
  const view = outcome.view!;
  const requestId = ctx.state.requestId as string | undefined;
  return view.kind === 'message' && outcome.status >= 400 && requestId !== undefined ? { ...view, reference: requestId } : view;
}

/** Issue 35: the view carries a passkey form, whose one script the page's CSP allows by its hash. */
const hasPasskeyForm = (view: SignInView | undefined): boolean =>
  (view?.kind === 'sign-in' || view?.kind === 'second-factor') && view.passkeyOptions !== undefined;

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
        scopes: view.scopes.map((s) => ({ name: s.name, description: describeScope(s, text) })),
        username: view.username,
        unverified: view.unverified,
        returnTo: view.returnTo,
      });
    case 'logout':
      return page.renderLogout?.({ lang: text.lang, action: pagePaths.endSession, hiddenFields: [['csrf', view.csrf], ...view.fields] });
    case 'second-factor':
      return page.renderSecondFactor?.({
        lang: text.lang, action: pagePaths.interaction, hiddenFields: [['step', 'second-factor'], ['interaction', view.interaction], ['csrf', view.csrf]],
        clientId: view.clientId, clientName: view.clientName, message: view.notice && text.secondFactor.notices[view.notice],
      });
    default:
      return undefined;
  }
}

function failure(err: unknown, ctx: Context, logger: Logger): SentOutcome {
  // A limit (`interactionLimit`): a page a person can read, with the standard 429 and Retry-After.
  if (isOAuthError(err) && err.status === 429) {
    logger.info({ reqId: ctx.state.requestId as string | undefined, address: ctx.ip, detail: err.logDetail }, 'sign-in page: rate limited');
    return { status: 429, view: { kind: 'message', message: 'too-many-requests' }, headers: err.headers };
  }
  const failed = pageFailure(err, ctx, logger, 'sign-in page');
  const message = failed.message === 'form-unreadable' ? 'request-unreadable' : failed.message;
  return { status: failed.status, view: { kind: 'message', message }, ...(failed.headers ? { headers: failed.headers } : {}) };
}
