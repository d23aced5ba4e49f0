/**
 * GET/POST /account/password-reset, "Forgot password?" (`src/account/password-reset-page.ts`,
 * rendered by `src/pages/account-templates.ts`), as Koa middleware: only routed when `smtp` is
 * configured. The mail goes out in the language the page is shown in. Nothing the person typed,
 * and not the link's token, reaches a log line (the request log has the path only).
 */
import type { Context, Middleware } from 'koa';
import type { ResolvedConfig } from '../../config/schema.js';
import type { Logger } from '../../sdk/contracts.js';
import type { LoadPageParts } from '../../pages/page-parts.js';
import type { AccountView } from '../../pages/account-views.js';
import type { PasswordReset } from '../../users/password-reset.js';
import { pageHeaders } from '../../pages/page-headers.js';
import { createPasswordResetPage } from '../../account/password-reset-page.js';
import type { AccountPageOutcome } from '../../account/password-page.js';
import { renderAccountPage } from '../../pages/account-templates.js';
import { paths } from '../../endpoints/urls.js';
import { formBodyReader } from '../read-form.js';
import { pageFailure } from './page-failure.js';
import { createLocalizedPageSender } from './localized-page-sender.js';
import { readSessionCookie, sessionCookieLines } from '../session-cookie.js';

export function createPasswordResetMiddleware(deps: {
  config: ResolvedConfig;
  reset: PasswordReset;
  pageParts: LoadPageParts;
  logger: Logger;
}): Middleware {
  const { config, logger } = deps;
  const action = new URL(config.issuer + paths.accountPasswordReset).pathname;
  const readBody = formBodyReader(config.limits);
  const sender = createLocalizedPageSender<AccountView>({ action, headers: pageHeaders(), render: renderAccountPage });
  let page: ReturnType<typeof createPasswordResetPage> | undefined;

  return async function passwordResetPage(ctx: Context): Promise<void> {
    const query = new URLSearchParams(ctx.querystring);
    // Chosen before the page runs: the reset mail goes out in the page's language.
    const chosen = sender.choose(ctx);
    const send = (status: number, view: AccountView): void => sender.send(ctx, status, view, chosen);
    let outcome: AccountPageOutcome;
    try {
      const parts = await deps.pageParts();
      page ??= createPasswordResetPage({ csrf: parts.csrf, newBrowserId: parts.cookies.newId, reset: deps.reset });
      const reading = readSessionCookie(ctx, parts.cookies, logger, 'password reset page');
      if (reading.kind === 'conflict') return send(400, { kind: 'message', message: 'cookies-conflict' });
      const method = ctx.method === 'POST' ? 'POST' : 'GET';
      const form = method === 'POST' && ctx.request.is('application/x-www-form-urlencoded') ? await readBody(ctx) : new Map<string, string>();
      outcome = await page({
        method, form, token: method === 'GET' ? query.get('token') ?? undefined : undefined, mail: chosen.value.passwordReset.mail,
        browserId: reading.kind === 'one' ? reading.id : undefined, remoteAddress: ctx.ip, requestId: ctx.state.requestId as string | undefined,
      });
      for (const line of sessionCookieLines(parts.cookies, reading, { browserId: outcome.browserId }, ctx.state.secureOrigin === true)) ctx.append('Set-Cookie', line);
    } catch (err) {
      const failed = pageFailure(err, ctx, logger, 'password reset page');
      if (failed.headers) ctx.set(failed.headers);
      return send(failed.status, { kind: 'message', message: failed.message });
    }
    if (outcome.headers) ctx.set(outcome.headers);
    send(outcome.status, outcome.view);
  };
}
