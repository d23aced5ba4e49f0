/**
 * GET/POST /account/second-factor (issue 35; `src/account/second-factor-page.ts`, rendered by
 * `src/pages/second-factor-templates.ts`) as Koa middleware, like the password page's adapter:
 * the cookie and the form in, HTML out, with the pages' headers and language choice. No code or
 * secret reaches a log line.
 */
import type { Context, Middleware } from 'koa';
import type { ResolvedConfig } from '../../config/schema.js';
import type { Logger } from '../../sdk/contracts.js';
import type { LoadPageParts } from '../../pages/page-parts.js';
import { pageHeaders } from '../../pages/page-headers.js';
import { renderSecondFactorPage, type SecondFactorAccountView } from '../../pages/second-factor-templates.js';
import { createSecondFactorPage, type SecondFactorPageOutcome } from '../../account/second-factor-page.js';
import type { SecondFactorService } from '../../second-factor/second-factors.js';
import type { PasskeyService } from '../../second-factor/passkeys.js';
import { passkeyScriptHash } from '../../pages/passkey-script.js';
import { paths } from '../../endpoints/urls.js';
import { formBodyReader } from '../read-form.js';
import { pageFailure } from './page-failure.js';
import { createLocalizedPageSender } from './localized-page-sender.js';
import { readSessionCookie, sessionCookieLines } from '../session-cookie.js';

export function createSecondFactorAccountPage(deps: {
  config: ResolvedConfig;
  factors: SecondFactorService;
  accountOf(subject: string): Promise<string | undefined>;
  pageParts: LoadPageParts;
  /** With `secondFactor.passkeys`. */
  passkeys?: PasskeyService | undefined;
  logger: Logger;
}): Middleware {
  const { config, logger } = deps;
  const action = new URL(config.issuer + paths.accountSecondFactor).pathname;
  const readBody = formBodyReader(config.limits);
  // The passkey form's one script, by its hash, when passkeys are on.
  const { send } = createLocalizedPageSender<SecondFactorAccountView>({
    action, headers: pageHeaders(deps.passkeys ? { scriptHash: passkeyScriptHash() } : {}), render: renderSecondFactorPage,
  });
  let page: ReturnType<typeof createSecondFactorPage> | undefined;

  return async function secondFactorPage(ctx: Context): Promise<void> {
    let outcome: SecondFactorPageOutcome;
    try {
      const parts = await deps.pageParts();
      page ??= createSecondFactorPage({ csrf: parts.csrf, sessions: parts.sessions, newBrowserId: parts.cookies.newId, factors: deps.factors, accountOf: deps.accountOf, passkeys: deps.passkeys, logger });
      const reading = readSessionCookie(ctx, parts.cookies, logger, 'second factor page');
      if (reading.kind === 'conflict') return send(ctx, 400, { kind: 'notice', notice: 'form-expired' });
      const method = ctx.method === 'POST' ? 'POST' : 'GET';
      const form = method === 'POST' && ctx.request.is('application/x-www-form-urlencoded') ? await readBody(ctx) : new Map<string, string>();
      outcome = await page({ method, form, browserId: reading.kind === 'one' ? reading.id : undefined, remoteAddress: ctx.ip });
      for (const line of sessionCookieLines(parts.cookies, reading, { browserId: outcome.browserId }, ctx.state.secureOrigin === true)) ctx.append('Set-Cookie', line);
    } catch (err) {
      const failed = pageFailure(err, ctx, logger, 'second factor page');
      if (failed.headers) ctx.set(failed.headers);
      return send(ctx, failed.status, { kind: 'notice', notice: 'form-expired' });
    }
    if (outcome.headers) ctx.set(outcome.headers);
    send(ctx, outcome.status, outcome.view);
  };
}
