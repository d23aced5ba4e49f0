/**
 * The authorization endpoint's decisions, without HTTP (RFC 6749 §4.1, OIDC Core §3.1.2): is
 * the request good, must the user sign in (no session, `prompt=login`, `max_age`), must they
 * consent, and then the code. The sign-in and consent pages post back here with the
 * interaction id and a CSRF token bound to the browser's cookie.
 */
import type { Client, ResolvedConfig } from '../config/schema.js';
import type { Clock, Logger, ResourceOwnerValidator, SignInResult } from '../sdk/contracts.js';
import type { EventService } from '../events/event-service.js';
import type { Csrf } from '../device/csrf.js';
import type { ScopeLine } from '../device/page-views.js';
import { AccessDenied, isOAuthError, OAuthError } from '../oauth/errors.js';
import type { PasswordThrottle } from '../oauth/password-throttle.js';
import type { SignInSession, SignInSessions } from '../session/sign-in-sessions.js';
import { RedirectableError, UntrustedRequestError, type AuthorizationRequest, type RequestValidator } from './authorization-request.js';
import { authorizationResponse, errorResponse, type AuthorizationResponse } from './authorization-response.js';
import type { AuthorizationCodes } from './authorization-codes.js';
import type { Interaction, Interactions } from './interactions.js';
import type { SignInView } from './views.js';
import type { PushedRequests } from './pushed-requests.js';
import type { Lookup } from '../clients/client-directory.js';

export interface BrowserContext {
  /** The id in the browser's valid cookie, if any. */
  readonly browserId: string | undefined;
  readonly remoteAddress: string | undefined;
  readonly requestId?: string | undefined;
}

export interface FlowOutcome {
  readonly status: number;
  readonly view?: SignInView;
  readonly response?: AuthorizationResponse;
  /** A browser id to set in the cookie (a new one after sign-in). */
  readonly browserId?: string;
  /** Clear the cookie (logout). */
  readonly clearCookie?: boolean;
  readonly headers?: Readonly<Record<string, string>>;
  /** Where the page's forms and redirects may go, for its Content-Security-Policy. */
  readonly redirectUri?: string;
}

export interface AuthorizeFlowDeps {
  config: ResolvedConfig;
  /** Every client of every store; default: the config's. */
  clients?: Lookup<Client>;
  validator: RequestValidator;
  sessions: SignInSessions;
  interactions: Interactions;
  codes: AuthorizationCodes;
  pushed: PushedRequests;
  users: ResourceOwnerValidator;
  /** The password grant's throttle: wrong passwords count the same here, on the device page and at the token endpoint. */
  passwordThrottle: PasswordThrottle;
  /** Judges the sign-in form; default: `username` and `password` against `users` (a plugin's `SignInPage` may replace it). */
  authenticate?: ((form: ReadonlyMap<string, string>, context: { remoteAddress?: string | undefined }) => Promise<SignInResult>) | undefined;
  csrf: Csrf;
  newBrowserId(): string;
  scopeDescriptions: ReadonlyMap<string, string | undefined>;
  clock: Clock;
  logger: Logger;
  events?: EventService | undefined;
}

const messages = {
  badCredentials: 'The username or password is incorrect.',
  startAgain: 'This sign-in has expired or was opened in another browser. Go back to the application and start again.',
} as const;

export function createAuthorizeFlow(deps: AuthorizeFlowDeps) {
  const { config, clock } = deps;
  const clients: Lookup<Client> = deps.clients ?? new Map(config.clients.map((c) => [c.clientId, c]));
  const throttle = deps.passwordThrottle;
  const clientName = (c: Client): string => c.clientName ?? c.clientId;
  const csrfFor = (browserId: string, interaction: string): string => deps.csrf.tokenFor(`${browserId}:${interaction}`);

  const message = (status: number, title: string, text: string): FlowOutcome => ({ status, view: { kind: 'message', title, text } });
  const respond = (request: AuthorizationRequest, values: Record<string, string>): FlowOutcome => ({
    status: 200, response: authorizationResponse(config.issuer, request, values), redirectUri: request.redirectUri,
  });
  const respondError = (request: AuthorizationRequest, error: OAuthError): FlowOutcome => ({
    status: 200, response: errorResponse(config.issuer, request, error), redirectUri: request.redirectUri,
  });

  /** OIDC Core §3.1.2.1: `max_age` and `prompt=login` ask for a sign-in newer than the request. */
  function needsSignIn(request: AuthorizationRequest, session: SignInSession | undefined, interaction: Interaction | undefined, browserId: string | undefined): boolean {
    if (!session) return true;
    if (interaction?.signedInAs !== undefined && interaction.signedInAs === browserId) return false;
    if (request.prompt.includes('login')) return true;
    return request.maxAge !== undefined && Math.floor(clock.now() / 1000) - session.authTime > request.maxAge;
  }

  function needsConsent(request: AuthorizationRequest, client: Client, session: SignInSession, interaction: Interaction | undefined): boolean {
    if (interaction?.consented) return false;
    if (request.prompt.includes('consent')) return true;
    if (!client.requireConsent) return false;
    const given = session.consents[client.clientId] ?? [];
    return !request.scopes.every((s) => given.includes(s));
  }

  function scopeLines(scopes: readonly string[]): ScopeLine[] {
    return scopes.map((name) => ({ name, description: deps.scopeDescriptions.get(name) }));
  }

  /** Takes the request as far as it can go: a sign-in page, a consent page or the code. */
  async function proceed(request: AuthorizationRequest, ctx: BrowserContext, interactionId: string | undefined, interaction: Interaction | undefined, setBrowserId?: string): Promise<FlowOutcome> {
    const client = clients.get(request.clientId)!;
    const browserId = setBrowserId ?? ctx.browserId;
    const session = browserId === undefined ? undefined : await deps.sessions.get(browserId);
    const withCookie = (o: FlowOutcome): FlowOutcome => (setBrowserId ? { ...o, browserId: setBrowserId } : o);

    if (needsSignIn(request, session, interaction, browserId)) {
      if (request.prompt.includes('none')) return respondError(request, new OAuthError('login_required', 'The user must sign in.'));
      const id = interactionId ?? (await deps.interactions.start(request));
      const bid = browserId ?? deps.newBrowserId();
      const view: SignInView = { kind: 'sign-in', interaction: id, csrf: csrfFor(bid, id), clientId: client.clientId, clientName: clientName(client), username: request.loginHint };
      return { status: 200, view, redirectUri: request.redirectUri, ...(bid !== ctx.browserId ? { browserId: bid } : {}) };
    }
    if (needsConsent(request, client, session!, interaction)) {
      if (request.prompt.includes('none')) return withCookie(respondError(request, new OAuthError('consent_required', 'The user must consent.')));
      const id = interactionId ?? (await deps.interactions.start(request));
      const user = await deps.users.findBySubject(session!.subject);
      return withCookie({
        status: 200,
        redirectUri: request.redirectUri,
        view: { kind: 'consent', interaction: id, csrf: csrfFor(browserId!, id), clientName: clientName(client), scopes: scopeLines(request.scopes), username: user?.username ?? session!.subject },
      });
    }
    const code = await deps.codes.issue({
      clientId: client.clientId, subject: session!.subject, lifetimeSeconds: client.authorizationCodeLifetime,
      grant: { redirectUri: request.redirectUri, codeChallenge: request.codeChallenge, scopes: request.scopes, nonce: request.nonce, sid: session!.sid, authTime: session!.authTime },
    });
    if (interactionId) await deps.interactions.finish(interactionId);
    if (!session!.clients.includes(client.clientId)) await deps.sessions.update(browserId!, { ...session!, clients: [...session!.clients, client.clientId] });
    deps.events?.raise({ type: 'code.issued', clientId: client.clientId, subject: session!.subject, scopes: request.scopes }, ctx.requestId);
    return withCookie(respond(request, { code }));
  }

  /** The interaction a page's POST continues, when its CSRF token fits this browser. */
  async function continued(form: ReadonlyMap<string, string>, ctx: BrowserContext): Promise<{ id: string; interaction: Interaction } | FlowOutcome> {
    const id = form.get('interaction') ?? '';
    const token = form.get('csrf');
    if (ctx.browserId === undefined || !deps.csrf.verify(`${ctx.browserId}:${id}`, token)) {
      deps.logger.info({ reqId: ctx.requestId }, 'sign-in page: CSRF token missing or not for this browser');
      return message(400, 'Please start again', messages.startAgain);
    }
    const interaction = await deps.interactions.get(id);
    if (!interaction) return message(400, 'Please start again', messages.startAgain);
    return { id, interaction };
  }

  async function signIn(form: ReadonlyMap<string, string>, ctx: BrowserContext): Promise<FlowOutcome> {
    const found = await continued(form, ctx);
    if (!('interaction' in found)) return found;
    const { id, interaction } = found;
    const request = interaction.request;
    const client = clients.get(request.clientId)!;
    const username = (form.get('username') ?? '').slice(0, 256);
    const password = (form.get('password') ?? '').slice(0, 1024);
    const custom = deps.authenticate;
    const again = (status: number, text: string, headers?: Record<string, string>): FlowOutcome => ({
      status, redirectUri: request.redirectUri, ...(headers ? { headers } : {}),
      view: { kind: 'sign-in', interaction: id, csrf: csrfFor(ctx.browserId!, id), clientId: client.clientId, clientName: clientName(client), username, message: text },
    });
    if (!custom && (username === '' || password === '')) return again(200, 'Enter your username and password.');
    try {
      await throttle.attempt(username, ctx.remoteAddress, clock.now());
    } catch (err) {
      if (!isOAuthError(err)) throw err;
      deps.events?.raise({ type: 'user.sign_in_failed', via: 'sign_in_page', reason: 'throttled' }, ctx.requestId);
      return again(429, 'Too many failed sign-ins. Wait a few minutes and try again.', { ...err.headers });
    }
    const result: SignInResult = custom
      ? await custom(form, { remoteAddress: ctx.remoteAddress })
      : await deps.users.validate(username, password).then((u) => (u ? { subject: u.subjectId } : { message: messages.badCredentials }));
    if (!('subject' in result) || typeof result.subject !== 'string' || result.subject === '') {
      await throttle.failed(ctx.remoteAddress, clock.now());
      deps.events?.raise({ type: 'user.sign_in_failed', via: 'sign_in_page', reason: 'rejected by the sign-in check' }, ctx.requestId);
      return again(200, 'message' in result && typeof result.message === 'string' ? result.message.slice(0, 500) : messages.badCredentials);
    }
    const user = { subjectId: result.subject };
    await throttle.succeeded(username, ctx.remoteAddress);
    // A new browser id at every sign-in: an id planted before (session fixation) signs nobody in.
    const browserId = deps.newBrowserId();
    await deps.sessions.start(browserId, user.subjectId);
    await deps.sessions.end(ctx.browserId!);
    const next: Interaction = { ...interaction, signedInAs: browserId };
    await deps.interactions.update(id, next);
    deps.events?.raise({ type: 'user.signed_in', subject: user.subjectId, via: 'sign_in_page' }, ctx.requestId);
    return proceed(request, ctx, id, next, browserId);
  }

  async function consent(form: ReadonlyMap<string, string>, ctx: BrowserContext): Promise<FlowOutcome> {
    const found = await continued(form, ctx);
    if (!('interaction' in found)) return found;
    const { id, interaction } = found;
    const request = interaction.request;
    const session = await deps.sessions.get(ctx.browserId!);
    if (!session) return proceed(request, ctx, id, interaction);
    const decision = form.get('decision');
    if (decision === 'deny') {
      await deps.interactions.finish(id);
      deps.events?.raise({ type: 'consent.denied', clientId: request.clientId, subject: session.subject }, ctx.requestId);
      return respondError(request, new AccessDenied('The user denied the request.'));
    }
    if (decision !== 'approve') return proceed(request, ctx, id, interaction);
    const given = new Set([...(session.consents[request.clientId] ?? []), ...request.scopes]);
    await deps.sessions.update(ctx.browserId!, { ...session, consents: { ...session.consents, [request.clientId]: [...given] } });
    deps.events?.raise({ type: 'consent.given', clientId: request.clientId, subject: session.subject, scopes: request.scopes }, ctx.requestId);
    const next: Interaction = { ...interaction, consented: true };
    return proceed(request, ctx, id, next);
  }

  /**
   * RFC 9126 §4: `client_id` and `request_uri` name a pushed request, used once; the front
   * channel's other parameters are ignored. Until the request is found its redirect URI is
   * unknown, so failures are shown on the page.
   */
  async function pushedRequest(params: ReadonlyMap<string, string>): Promise<AuthorizationRequest> {
    const clientId = params.get('client_id');
    const client = clientId === undefined ? undefined : clients.get(clientId);
    if (!client) throw new UntrustedRequestError('The application that sent you here is not known.', 'pushed request without a known client_id');
    const found = await deps.pushed.take(params.get('request_uri')!.slice(0, 200), client.clientId);
    if (!found) throw new UntrustedRequestError('This sign-in link has expired or was already used. Go back to the application and start again.', 'request_uri unknown, expired, used or of another client');
    return found;
  }

  return {
    /** GET/POST /connect/authorize. */
    async authorize(params: ReadonlyMap<string, string>, ctx: BrowserContext): Promise<FlowOutcome> {
      let request: AuthorizationRequest;
      try {
        request = params.has('request_uri') ? await pushedRequest(params) : deps.validator.validate(params, { pushed: false });
      } catch (err) {
        if (err instanceof UntrustedRequestError) {
          deps.logger.info({ reqId: ctx.requestId, detail: err.logDetail }, 'authorization request refused before its redirect URI was trusted');
          return message(400, 'This sign-in link is not valid', err.text);
        }
        if (err instanceof RedirectableError) {
          deps.logger.info({ reqId: ctx.requestId, error: err.error.code, detail: err.error.logDetail }, 'authorization request refused');
          return { status: 200, response: errorResponse(config.issuer, err.target, err.error), redirectUri: err.target.redirectUri };
        }
        throw err;
      }
      return proceed(request, ctx, undefined, undefined);
    },
    /** POST of the sign-in and consent pages. */
    async interact(form: ReadonlyMap<string, string>, ctx: BrowserContext): Promise<FlowOutcome> {
      const step = form.get('step');
      if (step === 'sign-in') return signIn(form, ctx);
      if (step === 'consent') return consent(form, ctx);
      return message(400, 'Please start again', messages.startAgain);
    },
  };
}

export type AuthorizeFlow = ReturnType<typeof createAuthorizeFlow>;
