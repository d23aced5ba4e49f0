/**
 * GET/POST /connect/endsession (OpenID Connect RP-Initiated Logout 1.0), without HTTP: ends the
 * browser's sign-in session and sends it to the client's `post_logout_redirect_uri` with
 * `state` — only to a URI registered for the client the hint or `client_id` names (§3: never
 * an open redirector). The user confirms first unless the `id_token_hint` was issued in this
 * very session (`hintNamesSession`): a logout request from a stranger must not sign anyone out
 * silently (§2, §6). A hint that fails validation makes the request unverified: it never
 * redirects (§4), with or without a session. Signing out revokes the tokens of every code
 * issued in the session (`SignInSessions.signOut`).
 */
import type { Client, ResolvedConfig } from '../config/schema.js';
import type { Logger } from '../sdk/contracts.js';
import type { BackChannelLogout } from './back-channel-logout.js';
import type { EventService } from '../events/event-service.js';
import type { Csrf } from '../pages/csrf.js';
import type { SignInSession, SignInSessions } from '../sessions/sign-in-sessions.js';
import type { IdTokenHint } from './id-token-hint.js';
import type { BrowserContext, SentOutcome } from './flow-outcome.js';
import type { SignInMessageId } from '../pages/sign-in-views.js';
import type { Lookup } from '../clients/client-directory.js';
import { idTokenHintMaxLength } from '../oauth/form-params.js';
import type { UpstreamLogout } from './upstream-logout.js';

export interface EndSessionDeps {
  config: Pick<ResolvedConfig, 'clients'>;
  /** Every client of every store; default: the config's. */
  clients?: Lookup<Client>;
  sessions: SignInSessions;
  csrf: Csrf;
  readHint(token: string): Promise<IdTokenHint | undefined>;
  logger: Logger;
  events?: EventService | undefined;
  /** Tells the session's clients, server to server (Back-Channel Logout 1.0); without it nobody is told. */
  backChannelLogout?: BackChannelLogout | undefined;
  /** Issue 34: signs a session that began at an upstream provider out there too (`logoutAtProvider`). */
  upstreamLogout?: UpstreamLogout | undefined;
}

const maxLength = 2000;

/**
 * Whether the hint is an ID token of this session, which lets the RP sign the user out without
 * asking (RP-Initiated Logout §2 and §6). The same subject is not enough: an ID token of the same
 * user from another client, another browser or an ended session (the one another RP kept, or one
 * that leaked) would sign this browser out with a cross-site GET. So its `sid` must be this
 * session's (a new one at every sign-in, `SignInSessions.start`) and its audience a client that
 * received a code in this session. Its age needs no check of its own: an expired hint is still
 * accepted (§2: users log out long after signing in), and the `sid` ties it to a session that
 * lives at most the session lifetime.
 */
export function hintNamesSession(hint: IdTokenHint, session: SignInSession): boolean {
  return hint.sid !== undefined && hint.sid === session.sid && hint.sub === session.subject && session.clients.includes(hint.clientId);
}

export function createEndSession(deps: EndSessionDeps) {
  const clients: Lookup<Client> = deps.clients ?? new Map(deps.config.clients.map((c) => [c.clientId, c]));
  const csrfFor = (browserId: string): string => deps.csrf.tokenFor(`logout:${browserId}`);

  return async function endSession(params: ReadonlyMap<string, string>, ctx: BrowserContext, method: 'GET' | 'POST'): Promise<SentOutcome> {
    // RP-Initiated Logout §2: `ui_locales` chooses the language of what the user sees here.
    const uiLocales = params.get('ui_locales');
    const language = uiLocales !== undefined && uiLocales.length <= 100 ? { uiLocales } : {};
    const page = (status: number, message: SignInMessageId): SentOutcome => ({ status, view: { kind: 'message', message }, ...language });
    for (const [name, value] of params) {
      if (value.length > (name === 'id_token_hint' ? idTokenHintMaxLength : maxLength)) return page(400, 'sign-out-unreadable');
    }
    const hintText = params.get('id_token_hint');
    const hint = hintText === undefined ? undefined : await deps.readHint(hintText);
    // §4: when a validation fails the OP must not redirect; `client_id` cannot vouch for the request then.
    const unverified = hintText !== undefined && !hint;
    if (unverified) deps.logger.info({ reqId: ctx.requestId }, 'end session: id_token_hint not valid');
    const clientId = params.get('client_id');
    if (hint && clientId !== undefined && clientId !== hint.clientId) return page(400, 'sign-out-invalid');
    const client: Client | undefined = clients.get(hint?.clientId ?? clientId ?? '');
    const redirect = params.get('post_logout_redirect_uri');
    if (redirect !== undefined && !client?.postLogoutRedirectUris.includes(redirect)) {
      deps.logger.info({ reqId: ctx.requestId, clientId: client?.clientId }, 'end session: post_logout_redirect_uri not registered');
      return page(400, 'sign-out-redirect-unregistered');
    }

    const session = ctx.browserId === undefined ? undefined : await deps.sessions.get(ctx.browserId);
    const confirmed = method === 'POST' && ctx.browserId !== undefined && deps.csrf.verify(`logout:${ctx.browserId}`, params.get('csrf'));
    if (session && !confirmed && !(hint && hintNamesSession(hint, session))) {
      if (method === 'POST' && params.has('csrf')) return page(400, 'sign-out-expired');
      const fields: Array<[string, string]> = [];
      for (const name of ['id_token_hint', 'post_logout_redirect_uri', 'state', 'client_id', 'ui_locales'] as const) {
        const value = params.get(name);
        if (value !== undefined) fields.push([name, value]);
      }
      const target = redirect !== undefined && !unverified ? { redirectUri: redirect } : {};
      const upstream = session.upstreamLogout !== undefined && deps.upstreamLogout ? { formTargets: deps.upstreamLogout.targets() } : {};
      return { status: 200, view: { kind: 'logout', csrf: csrfFor(ctx.browserId!), fields }, ...language, ...target, ...upstream };
    }
    // Nothing to sign out and nowhere we may send the browser: say the request was not valid.
    if (!session && unverified) return page(400, 'sign-out-invalid');
    if (confirmed && params.get('decision') === 'deny') return page(200, 'still-signed-in');

    if (session && ctx.browserId !== undefined) {
      const { revoked } = await deps.sessions.signOut(ctx.browserId);
      deps.logger.info({ reqId: ctx.requestId, revoked }, 'end session: signed out; the tokens of its codes revoked');
      deps.events?.raise({ type: 'user.signed_out', subject: session.subject, clientId: client?.clientId }, ctx.requestId);
      // Queued in the store before the answer (one short write), delivered by a worker: the
      // browser's sign-out never waits for a client, and the telling survives this node.
      await deps.backChannelLogout?.notify(session, ctx.requestId).catch((err: unknown) => deps.logger.warn({ reqId: ctx.requestId, err }, 'back-channel logout could not be queued'));
    }
    const cleared = { clearCookie: true } as const;
    let next: string | undefined;
    if (redirect !== undefined && !unverified) {
      const url = new URL(redirect);
      const state = params.get('state');
      if (state !== undefined) url.searchParams.append('state', state);
      next = url.href;
    }
    // Issue 34: by way of the upstream provider's logout, which sends the browser back to `endSessionReturn`.
    if (session?.upstreamLogout !== undefined && deps.upstreamLogout) {
      const atProvider = await deps.upstreamLogout.start(session.upstreamLogout, { ...(next === undefined ? {} : { location: next }), ...language })
        .catch((err: unknown) => void deps.logger.warn({ reqId: ctx.requestId, err }, 'upstream logout failed; signed out here only'));
      if (atProvider !== undefined) return { status: 200, response: { kind: 'redirect', location: atProvider }, ...language, ...cleared };
    }
    if (next === undefined) return { ...page(200, 'signed-out'), ...cleared };
    return { status: 200, response: { kind: 'redirect', location: next }, redirectUri: redirect, ...cleared };
  };
}

/** Issue 34: GET /connect/endsession/callback, back from the provider's logout: on with ours. */
export function createEndSessionReturn(upstreamLogout: UpstreamLogout | undefined) {
  return async function endSessionReturn(params: ReadonlyMap<string, string>): Promise<SentOutcome> {
    const next = await upstreamLogout?.finish(params.get('state'));
    const language = next?.uiLocales === undefined ? {} : { uiLocales: next.uiLocales };
    if (next?.location === undefined) return { status: 200, view: { kind: 'message', message: 'signed-out' }, ...language };
    return { status: 200, response: { kind: 'redirect', location: next.location }, redirectUri: next.location, ...language };
  };
}
