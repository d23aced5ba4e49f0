/**
 * GET/POST /device, the verification page (RFC 8628 §3.3), as Koa middleware: reads the
 * cookie and the form, runs the page's step (`src/device/verification-page.ts`), renders HTML
 * (`src/pages/device-templates.ts`). The cookie, CSRF tokens and sign-in sessions are the ones every
 * page shares (`src/pages/page-parts.ts`). Every failure is an HTML page with a plain message;
 * nothing the user typed reaches a log line.
 */
import type { Context, Middleware } from 'koa';
import type { ResolvedConfig } from '../../config/schema.js';
import type { Logger } from '../../sdk/contracts.js';
import { formBodyReader } from '../read-form.js';
import { pageFailure } from './page-failure.js';
import { paths } from '../../endpoints/urls.js';
import type { UserCodeFormat } from '../../device/user-code.js';
import type { PageParts } from '../../pages/page-parts.js';
import { readSessionCookie, sessionCookieLines } from '../session-cookie.js';
import { pageHeaders } from '../../pages/page-headers.js';
import { passkeyScriptHash } from '../../pages/passkey-script.js';
import type { PageOutcome, VerificationPage } from '../../device/verification-page.js';
import type { PageView } from '../../pages/device-views.js';
import { renderPage, type RenderOptions } from '../../pages/device-templates.js';
import { choosePageText, pageLanguageTags } from '../../pages/text/index.js';
import type { Branding } from '../../pages/branding.js';

/** The page's steps and the parts every page shares, built by the composition root (`src/app/page-wiring.ts`). */
export type LoadVerificationPage = () => Promise<{ readonly parts: PageParts; readonly page: VerificationPage }>;

export interface DevicePageDeps {
  /** The issuer, under whose path the page's form posts. */
  issuer: string;
  limits: ResolvedConfig['limits'];
  /** Digits or letters: numeric codes get a numeric keyboard (RFC 8628 §6.1). */
  userCodeFormat: UserCodeFormat;
  logger: Logger;
  verificationPage: LoadVerificationPage;
  /** The deployment's look and templates (`pages` in the config); default the built-in ones. */
  branding?: Branding | undefined;
  /** Issue 34: `smtp` is configured, so the sign-in form links "Forgot password?". */
  forgotPassword?: boolean | undefined;
  /** Issue 35, `secondFactor.passkeys`: the sign-in form's passkey script is allowed by its hash. */
  passkeys?: boolean | undefined;
}

export function createDevicePage(deps: DevicePageDeps): Middleware {
  const { logger } = deps;
  const action = new URL(deps.issuer + paths.devicePage).pathname;
  const numericCodes = deps.userCodeFormat === 'numeric';
  // A language chosen by ui_locales must survive the page's own forms and links; the supported
  // tag is carried, never the caller's text. Accept-Language comes again with every request.
  const actionFor = new Map(pageLanguageTags.map((tag) => [tag, `${action}?ui_locales=${encodeURIComponent(tag)}`]));
  // The same reader as every endpoint: flat parameters, duplicates rejected, unreadable bodies a 400.
  const readBody = formBodyReader(deps.limits);
  const headers = pageHeaders({ branding: deps.branding, ...(deps.passkeys ? { scriptHash: passkeyScriptHash() } : {}) });
  const forgotPassword = deps.forgotPassword ? { forgotPassword: new URL(deps.issuer + paths.accountPasswordReset).pathname } : {};

  async function readForm(ctx: Context): Promise<Map<string, string>> {
    return ctx.request.is('application/x-www-form-urlencoded') ? readBody(ctx) : new Map();
  }

  function renderOptions(ctx: Context): RenderOptions {
    const uiLocales = new URLSearchParams(ctx.querystring).get('ui_locales') ?? undefined;
    const chosen = choosePageText(uiLocales, ctx.get('accept-language') || undefined);
    return { action: chosen.from === 'ui_locales' ? actionFor.get(chosen.tag)! : action, numericCodes, text: chosen.value, ...(deps.branding ? { branding: deps.branding } : {}), ...forgotPassword };
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
      const { parts, page } = await deps.verificationPage();
      // Two session cookies (cookie tossing): refused before any step, see `session-cookie.ts`.
      const reading = readSessionCookie(ctx, parts.cookies, logger, 'device page');
      if (reading.kind === 'conflict') {
        send(ctx, 400, { kind: 'message', message: 'cookies-conflict' });
        return;
      }
      const method = ctx.method === 'POST' ? 'POST' : 'GET';
      const form = method === 'POST' ? await readForm(ctx) : new Map<string, string>();
      outcome = await page({
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
