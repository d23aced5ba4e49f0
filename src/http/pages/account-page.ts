/**
 * GET/POST /account/password, the password change page (`src/account/password-page.ts`, rendered by `src/pages/account-templates.ts`), as Koa
 * middleware: the cookie and the form in, the page's step, HTML out, with the pages' headers
 * and language choice. Nothing the person typed reaches a log line.
 */
import type { Context, Middleware } from 'koa';
import type { ResolvedConfig } from '../../config/schema.js';
import type { Clock, Logger, ResourceOwnerValidator } from '../../sdk/contracts.js';
import type { UserRecordStore } from '../../store/user-records.js';
import type { PasswordThrottle } from '../../throttling/password-throttle.js';
import type { LoadPageParts } from '../../pages/page-parts.js';
import type { AccountView } from '../../pages/account-views.js';
import { pageHeaders } from '../../pages/page-headers.js';
import { createThrottledSignIn } from '../../throttling/throttled-sign-in.js';
import { createPasswordChange } from '../../users/password-change.js';
import { createPasswordPage, type AccountPageOutcome } from '../../account/password-page.js';
import { renderAccountPage } from '../../pages/account-templates.js';
import { paths } from '../../endpoints/urls.js';
import { formBodyReader } from '../read-form.js';
import { pageFailure } from './page-failure.js';
import { createLocalizedPageSender } from './localized-page-sender.js';
import { readSessionCookie, sessionCookieLines } from '../session-cookie.js';

export function createAccountPage(deps: {
  config: ResolvedConfig;
  users: () => UserRecordStore;
  resourceOwnerValidator: ResourceOwnerValidator;
  passwordThrottle: PasswordThrottle;
  pageParts: LoadPageParts;
  clock: Clock;
  logger: Logger;
}): Middleware {
  const { config, clock, logger } = deps;
  const action = new URL(config.issuer + paths.accountPassword).pathname;
  const readBody = formBodyReader(config.limits);
  const { send } = createLocalizedPageSender<AccountView>({ action, headers: pageHeaders(), render: renderAccountPage });
  const change = createPasswordChange({ users: deps.users, rules: config.passwordRules, clock });
  const throttled = createThrottledSignIn({ passwordThrottle: deps.passwordThrottle, clock });
  let page: ReturnType<typeof createPasswordPage> | undefined;

  return async function accountPage(ctx: Context): Promise<void> {
    let outcome: AccountPageOutcome;
    try {
      const parts = await deps.pageParts();
      page ??= createPasswordPage({
        csrf: parts.csrf, sessions: parts.sessions, newBrowserId: parts.cookies.newId, users: deps.resourceOwnerValidator, throttled, change, clock, logger,
      });
      const reading = readSessionCookie(ctx, parts.cookies, logger, 'account page');
      if (reading.kind === 'conflict') return send(ctx, 400, { kind: 'message', message: 'cookies-conflict' });
      const method = ctx.method === 'POST' ? 'POST' : 'GET';
      const form = method === 'POST' && ctx.request.is('application/x-www-form-urlencoded') ? await readBody(ctx) : new Map<string, string>();
      outcome = await page({ method, form, browserId: reading.kind === 'one' ? reading.id : undefined, remoteAddress: ctx.ip });
      for (const line of sessionCookieLines(parts.cookies, reading, { browserId: outcome.browserId }, ctx.state.secureOrigin === true)) ctx.append('Set-Cookie', line);
    } catch (err) {
      const failed = pageFailure(err, ctx, logger, 'account page');
      if (failed.headers) ctx.set(failed.headers);
      return send(ctx, failed.status, { kind: 'message', message: failed.message });
    }
    if (outcome.headers) ctx.set(outcome.headers);
    send(ctx, outcome.status, outcome.view);
  };
}
