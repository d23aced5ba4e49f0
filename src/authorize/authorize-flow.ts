/**
 * The authorization endpoint's decisions, without HTTP (RFC 6749 §4.1, OIDC Core §3.1.2): is
 * the request good, must the user sign in (no session, `prompt=login`, `max_age`), must they
 * consent, and then the code. The sign-in and consent pages post back here with the
 * interaction id and a CSRF token bound to the browser's cookie.
 */
import type { Client, ResolvedConfig } from '../config/schema.js';
import type { Clock, ExternalSignIn, ExternalSignInFailure, Logger, ResourceOwnerValidator, SignInResult } from '../sdk/contracts.js';
import type { EventService } from '../events/event-service.js';
import type { Csrf } from '../pages/csrf.js';
import type { ScopeLine } from '../pages/device-views.js';
import { AccessDenied, InvalidRequest, OAuthError } from '../oauth/errors.js';
import type { PasswordThrottle } from '../throttling/password-throttle.js';
import { familyOfSpentGrant } from '../oauth/grant-family.js';
import { createThrottledSignIn } from '../throttling/throttled-sign-in.js';
import type { SignInSession, SignInSessions } from '../sessions/sign-in-sessions.js';
import { RedirectableError, UntrustedRequestError, type AuthorizationRequest, type RequestValidator } from './authorization-request.js';
import { authorizationResponse, errorResponse, type AuthorizationResponse } from './authorization-response.js';
import type { AuthorizationCodes } from './authorization-codes.js';
import type { Interaction, Interactions } from './interactions.js';
import { shownReason, type SignInMessageId, type SignInNoticeId, type SignInView } from '../pages/sign-in-views.js';
import type { PushedRequests } from './pushed-requests.js';
import type { Lookup } from '../clients/client-directory.js';
import { isRegisteredRedirectUri } from './redirect-uri.js';
import type { IdTokenHint } from './id-token-hint.js';
import { isSelfRegistered, isUnprovableNativeClient, needsConsent, redirectTargetOf } from './consent-policy.js';

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
  /** The request's `ui_locales` (OIDC Core §3.1.2.1), for the page's language. */
  readonly uiLocales?: string;
  /** ISSUE 34: the upstream providers' origins, where the page's buttons lead after our redirect. */
  readonly formTargets?: readonly string[];
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
  /** A plugin's external identity provider, in place of the sign-in form. */
  external?: ExternalSignIn | undefined;
  /** The absolute URL of the callback route (`paths.signInCallback`). */
  callbackUrl: string;
  scopeDescriptions: ReadonlyMap<string, string | undefined>;
  clock: Clock;
  logger: Logger;
  events?: EventService | undefined;
  /** Reads an `id_token_hint` (`readIdTokenHint`); without it a hint is refused as invalid. */
  readHint?: ((token: string) => Promise<IdTokenHint | undefined>) | undefined;
}


/** A plugin's answer names a subject: anything else is a refusal. */
const signedInSubject = (result: SignInResult): boolean =>
  typeof result === 'object' && result !== null && 'subject' in result && typeof result.subject === 'string' && result.subject !== '';

export function createAuthorizeFlow(deps: AuthorizeFlowDeps) {
  const { config, clock } = deps;
  const clients: Lookup<Client> = deps.clients ?? new Map(config.clients.map((c) => [c.clientId, c]));
  const signInThrottle = createThrottledSignIn({ passwordThrottle: deps.passwordThrottle, clock });
  const clientName = (c: Client): string => c.clientName ?? c.clientId;
  const csrfFor = (browserId: string, interaction: string): string => deps.csrf.tokenFor(`${browserId}:${interaction}`);

  const message = (status: number, id: SignInMessageId, uiLocales?: string): FlowOutcome => ({ status, view: { kind: 'message', message: id }, ...(uiLocales ? { uiLocales } : {}) });
  const languageOf = (request: AuthorizationRequest): { uiLocales?: string } => (request.uiLocales ? { uiLocales: request.uiLocales } : {});
  const respond = (request: AuthorizationRequest, values: Record<string, string>): FlowOutcome => ({
    status: 200, response: authorizationResponse(config.issuer, request, values), redirectUri: request.redirectUri,
  });
  const respondError = (request: AuthorizationRequest, error: OAuthError): FlowOutcome => ({
    status: 200, response: errorResponse(config.issuer, request, error), redirectUri: request.redirectUri,
  });

  /**
   * OIDC Core §3.1.2.1: `max_age` and `prompt=login` ask for a sign-in newer than the request;
   * `max_age=0` is `prompt=login`, as `auth_time` counts whole seconds and a sign-in earlier in
   * the same second would pass. An `id_token_hint` naming another user than the session's
   * asks for a sign-in too. A sign-in in this interaction meets all of them.
   */
  function needsSignIn(request: AuthorizationRequest, session: SignInSession | undefined, interaction: Interaction | undefined, browserId: string | undefined): boolean {
    if (!session) return true;
    if (interaction?.signedInAs !== undefined && interaction.signedInAs === browserId) return false;
    if (request.prompt.includes('login') || request.maxAge === 0) return true;
    if (request.hintSubject !== undefined && request.hintSubject !== session.subject) return true;
    return request.maxAge !== undefined && Math.floor(clock.now() / 1000) - session.authTime > request.maxAge;
  }

  /**
   * The request's client as it is now, while its redirect URI is still one of the client's. A
   * page stays open for minutes: a client changed meanwhile (a redirect URI removed by RFC 7592
   * `PUT` or `svc clients update`) must not receive the code at the URI it no longer has.
   */
  function liveClient(request: AuthorizationRequest): Client | undefined {
    const client = clients.get(request.clientId);
    return client && isRegisteredRedirectUri(client, request.redirectUri) ? client : undefined;
  }

  /**
   * A client removed, disabled or no longer registered at the request's redirect URI while its
   * page was open (RFC 7592 `DELETE`/`PUT`, `svc clients disable`): the interaction ends with
   * the page an unknown client gets.
   */
  async function clientGone(request: AuthorizationRequest, ctx: BrowserContext, interactionId: string | undefined): Promise<FlowOutcome> {
    if (interactionId) await deps.interactions.finish(interactionId);
    deps.logger.info({ reqId: ctx.requestId, clientId: request.clientId }, 'authorization: the client is gone or disabled; the interaction ends');
    return message(400, 'client-unknown', request.uiLocales);
  }

  /**
   * OIDC Core §3.1.2.1 `id_token_hint`: an ID token this service issued to this client (it may
   * have expired). Read once, here; only its `sub` goes on with the request. A hint that is not
   * one is `invalid_request` at the redirect URI, as node-oidc-provider answers.
   */
  async function withHint(request: AuthorizationRequest, ctx: BrowserContext): Promise<AuthorizationRequest | FlowOutcome> {
    const { idTokenHint, ...rest } = request;
    if (idTokenHint === undefined) return request;
    const hint = deps.readHint ? await deps.readHint(idTokenHint) : undefined;
    if (hint?.clientId !== request.clientId) {
      deps.logger.info({ reqId: ctx.requestId, clientId: request.clientId }, hint ? 'id_token_hint was issued to another client' : 'id_token_hint is not an ID token of this service');
      return respondError(request, new InvalidRequest('The id_token_hint is not valid.'));
    }
    return { ...rest, hintSubject: hint.sub };
  }

  function scopeLines(scopes: readonly string[]): ScopeLine[] {
    return scopes.map((name) => ({ name, description: deps.scopeDescriptions.get(name) }));
  }

  /** Takes the request as far as it can go: a sign-in page, a consent page or the code. */
  async function proceed(request: AuthorizationRequest, ctx: BrowserContext, interactionId: string | undefined, interaction: Interaction | undefined, setBrowserId?: string): Promise<FlowOutcome> {
    const client = liveClient(request);
    if (!client) return clientGone(request, ctx, interactionId);
    const browserId = setBrowserId ?? ctx.browserId;
    const session = browserId === undefined ? undefined : await deps.sessions.get(browserId);
    const withCookie = (o: FlowOutcome): FlowOutcome => (setBrowserId ? { ...o, browserId: setBrowserId } : o);

    if (needsSignIn(request, session, interaction, browserId)) {
      if (request.prompt.includes('none')) return respondError(request, new OAuthError('login_required', 'The user must sign in.'));
      const id = interactionId ?? (await deps.interactions.start(request, ctx.remoteAddress));
      const bid = browserId ?? deps.newBrowserId();
      const cookie = bid !== ctx.browserId ? { browserId: bid } : {};
      // ISSUE 34: with several providers the page offers a button each, unless `acr_values` names one.
      const hinted = hintedProvider(request);
      if (deps.external && (!deps.external.providers || hinted)) return { ...(await startExternalSignIn(request, client, id, bid, hinted)), ...cookie };
      const view: SignInView = { kind: 'sign-in', interaction: id, csrf: csrfFor(bid, id), clientId: client.clientId, clientName: clientName(client), username: request.loginHint, ...providerChoice() };
      return { status: 200, view, redirectUri: request.redirectUri, ...languageOf(request), ...cookie, ...providerTargets() };
    }
    if (needsConsent(request, client, { remembered: session!.consents[client.clientId] ?? [], approvedNow: interaction?.consented === true })) {
      if (request.prompt.includes('none')) return withCookie(respondError(request, new OAuthError('consent_required', 'The user must consent.')));
      const id = interactionId ?? (await deps.interactions.start(request, ctx.remoteAddress));
      const user = await deps.users.findBySubject(session!.subject);
      const unverified = isSelfRegistered(client);
      const showTarget = unverified || isUnprovableNativeClient(client, request.redirectUri);
      return withCookie({
        status: 200,
        redirectUri: request.redirectUri,
        ...languageOf(request),
        view: {
          kind: 'consent', interaction: id, csrf: csrfFor(browserId!, id), clientId: client.clientId, clientName: clientName(client), scopes: scopeLines(request.scopes),
          username: user?.username ?? session!.subject, unverified, returnTo: showTarget ? redirectTargetOf(request.redirectUri) : undefined,
        },
      });
    }
    const code = await deps.codes.issue({
      clientId: client.clientId, subject: session!.subject, lifetimeSeconds: client.authorizationCodeLifetime,
      grant: {
        redirectUri: request.redirectUri, codeChallenge: request.codeChallenge, scopes: request.scopes, nonce: request.nonce, sid: session!.sid, authTime: session!.authTime,
        ...(request.dpopJkt === undefined ? {} : { dpopJkt: request.dpopJkt }),
      },
    });
    if (interactionId) await deps.interactions.finish(interactionId);
    await deps.sessions.codeIssued(browserId!, client.clientId, familyOfSpentGrant(code));
    deps.events?.raise({ type: 'code.issued', clientId: client.clientId, subject: session!.subject, scopes: request.scopes }, ctx.requestId);
    return withCookie(respond(request, { code }));
  }

  /**
   * Hands the person to the plugin's identity provider. The `state` it must bring back names
   * the interaction and carries the CSRF token bound to this browser, so an answer arriving in
   * another browser (login CSRF) signs nobody in.
   */
  async function startExternalSignIn(request: AuthorizationRequest, client: Client, id: string, browserId: string, provider?: string): Promise<FlowOutcome> {
    let location: string;
    try {
      location = await deps.external!.start({
        state: `${id}.${csrfFor(browserId, id)}`, callbackUrl: deps.callbackUrl,
        clientId: client.clientId, clientName: clientName(client), loginHint: request.loginHint, uiLocales: request.uiLocales,
        ...(provider === undefined ? {} : { provider }),
      });
    } catch (err) {
      // ISSUE 34: a provider that cannot be reached (its discovery document) is a page naming it.
      const chosen = deps.external!.providers?.find((p) => p.name === provider);
      if (!chosen) throw err;
      deps.logger.info({ err, provider }, 'external sign-in: the identity provider could not be reached');
      deps.events?.raise({ type: 'user.sign_in_failed', via: `upstream:${chosen.name}`, reason: 'unavailable' });
      return offerProvidersAgain(request, client, id, browserId, { provider: chosen.displayName, reason: 'unavailable', message: '' });
    }
    let url: URL;
    try {
      url = new URL(location);
    } catch {
      throw new Error('externalSignIn.start returned no absolute URL');
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error('externalSignIn.start returned a URL that is not http(s)');
    return { status: 200, response: { kind: 'redirect', location: url.href }, ...languageOf(request) };
  }

  /**
   * ISSUE 34: `acr_values=idp:<name>` (IdentityServer's convention; OIDC Core §3.1.2.1 leaves
   * the values to the deployment) names one of the configured upstream providers.
   */
  function hintedProvider(request: AuthorizationRequest): string | undefined {
    const names = new Set(deps.external?.providers?.map((p) => p.name));
    return request.acrValues?.split(' ').map((v) => (v.startsWith('idp:') ? v.slice(4) : '')).find((n) => names.has(n));
  }

  /** ISSUE 34: what the sign-in view needs to offer the upstream providers. */
  function providerChoice(): Pick<Extract<SignInView, { kind: 'sign-in' }>, 'providers' | 'passwordForm'> {
    const providers = deps.external?.providers;
    return providers ? { providers, passwordForm: deps.external!.passwordForm !== false } : {};
  }

  /** ISSUE 34: a page with the providers' buttons may send its form on to their origins (CSP `form-action`). */
  function providerTargets(): { formTargets?: readonly string[] } {
    const targets = new Set(deps.external?.providers?.flatMap((p) => (p.formAction ? [p.formAction] : [])));
    return targets.size > 0 ? { formTargets: [...targets] } : {};
  }

  /** ISSUE 34: the sign-in page again after a provider failed, naming it; the interaction goes on. */
  function offerProvidersAgain(request: AuthorizationRequest, client: Client, id: string, browserId: string, failure: NonNullable<Extract<SignInView, { kind: 'sign-in' }>['upstreamFailure']>): FlowOutcome {
    return {
      status: 200, redirectUri: request.redirectUri, ...languageOf(request), ...providerTargets(),
      view: { kind: 'sign-in', interaction: id, csrf: csrfFor(browserId, id), clientId: client.clientId, clientName: clientName(client), username: request.loginHint, ...providerChoice(), upstreamFailure: failure },
    };
  }

  /** ISSUE 34: POST of a provider's button on the sign-in page. */
  async function chooseProvider(form: ReadonlyMap<string, string>, ctx: BrowserContext): Promise<FlowOutcome> {
    const found = await continued(form, ctx);
    if (!('interaction' in found)) return found;
    const request = found.interaction.request;
    const client = liveClient(request);
    if (!client) return clientGone(request, ctx, found.id);
    const provider = form.get('provider');
    if (!deps.external?.providers?.some((p) => p.name === provider)) return message(400, 'start-again', request.uiLocales);
    return startExternalSignIn(request, client, found.id, ctx.browserId!, provider);
  }

  /** The interaction a page's POST continues, when its CSRF token fits this browser. */
  async function continued(form: ReadonlyMap<string, string>, ctx: BrowserContext): Promise<{ id: string; interaction: Interaction } | FlowOutcome> {
    const id = form.get('interaction') ?? '';
    const token = form.get('csrf');
    if (ctx.browserId === undefined || !deps.csrf.verify(`${ctx.browserId}:${id}`, token)) {
      deps.logger.info({ reqId: ctx.requestId }, 'sign-in page: CSRF token missing or not for this browser');
      return message(400, 'start-again');
    }
    const interaction = await deps.interactions.get(id);
    if (!interaction) return message(400, 'start-again');
    return { id, interaction };
  }

  async function signIn(form: ReadonlyMap<string, string>, ctx: BrowserContext): Promise<FlowOutcome> {
    const found = await continued(form, ctx);
    if (!('interaction' in found)) return found;
    const { id, interaction } = found;
    const request = interaction.request;
    const client = liveClient(request);
    if (!client) return clientGone(request, ctx, id);
    const username = (form.get('username') ?? '').slice(0, 256);
    const password = (form.get('password') ?? '').slice(0, 1024);
    const custom = deps.authenticate;
    const again = (status: number, said: { notice: SignInNoticeId } | { message: string }, headers?: Record<string, string>): FlowOutcome => ({
      status, redirectUri: request.redirectUri, ...(headers ? { headers } : {}), ...languageOf(request), ...providerTargets(),
      view: { kind: 'sign-in', interaction: id, csrf: csrfFor(ctx.browserId!, id), clientId: client.clientId, clientName: clientName(client), username, ...said, ...providerChoice() },
    });
    // ISSUE 34: only the providers' buttons are offered; a POSTed password is not even looked at.
    if (deps.external?.providers && deps.external.passwordForm === false) return message(400, 'start-again', request.uiLocales);
    if (!custom && (username === '' || password === '')) return again(200, { notice: 'credentials-missing' });
    const judge = (): Promise<SignInResult> => custom
      ? custom(form, { remoteAddress: ctx.remoteAddress })
      : deps.users.validate(username, password).then((u): SignInResult => (u ? { subject: u.subjectId } : { message: '' }));
    const checked = await signInThrottle.attempt(username, ctx.remoteAddress, judge, signedInSubject);
    if (checked.outcome === 'throttled') {
      deps.events?.raise({ type: 'user.sign_in_failed', via: 'sign_in_page', reason: 'throttled' }, ctx.requestId);
      return again(429, { notice: 'too-many-sign-ins' }, { 'Retry-After': String(checked.retryAfterSeconds) });
    }
    const result = checked.result as Partial<Record<'subject' | 'message', unknown>> | null;
    if (checked.outcome === 'rejected' || typeof result?.subject !== 'string') {
      deps.events?.raise({ type: 'user.sign_in_failed', via: 'sign_in_page', reason: 'rejected by the sign-in check' }, ctx.requestId);
      // A plugin's own words when it gave some; else ours, in the reader's language.
      return again(200, typeof result?.message === 'string' && result.message !== '' ? { message: result.message.slice(0, 500) } : { notice: 'credentials-wrong' });
    }
    return signedIn(result.subject, ctx, id, interaction, 'sign_in_page');
  }

  /** After any sign-in: a new session under a new browser id, then on with the request. */
  async function signedIn(subject: string, ctx: BrowserContext, id: string, interaction: Interaction, via: string): Promise<FlowOutcome> {
    // A new browser id at every sign-in: an id planted before (session fixation) signs nobody in.
    const browserId = deps.newBrowserId();
    const previous = await deps.sessions.get(ctx.browserId!);
    await deps.sessions.start(browserId, subject, previous);
    await deps.sessions.end(ctx.browserId!);
    const next: Interaction = { ...interaction, signedInAs: browserId };
    await deps.interactions.update(id, next);
    deps.events?.raise({ type: 'user.signed_in', subject, via }, ctx.requestId);
    return proceed(interaction.request, ctx, id, next, browserId);
  }

  /** GET/POST of the plugin's callback route: the identity provider's answer. */
  async function externalCallback(params: ReadonlyMap<string, string>, ctx: BrowserContext): Promise<FlowOutcome> {
    const external = deps.external;
    if (!external) return message(404, 'start-again');
    const result = (await external.callback(params, { remoteAddress: ctx.remoteAddress })) as Partial<Record<'state' | 'subject' | 'message', unknown>> | null;
    const state = typeof result?.state === 'string' ? result.state : '';
    const dot = state.indexOf('.');
    const found = await continued(new Map([['interaction', state.slice(0, Math.max(0, dot))], ['csrf', state.slice(dot + 1)]]), ctx);
    if (!('interaction' in found)) return found;
    const client = liveClient(found.interaction.request);
    if (!client) return clientGone(found.interaction.request, ctx, found.id);
    // ISSUE 34: a provider's failure (it raised its own event) shows the choice again, naming it.
    const failedAt = (result as { provider?: unknown } | null)?.provider;
    if ((typeof result?.subject !== 'string' || result.subject === '') && external.providers && typeof failedAt === 'string') {
      const reason = (result as { reason?: ExternalSignInFailure }).reason;
      return offerProvidersAgain(found.interaction.request, client, found.id, ctx.browserId!, { provider: failedAt, reason, message: typeof result?.message === 'string' ? result.message.slice(0, 500) : '' });
    }
    if (typeof result?.subject !== 'string' || result.subject === '') {
      deps.logger.info({ reqId: ctx.requestId }, 'external sign-in: the identity provider answered without a subject');
      deps.events?.raise({ type: 'user.sign_in_failed', via: 'external', reason: 'rejected by the identity provider' }, ctx.requestId);
      await deps.interactions.finish(found.id);
      return { ...message(400, 'external-sign-in-failed'), ...languageOf(found.interaction.request) };
    }
    return signedIn(result.subject, ctx, found.id, found.interaction, 'external');
  }

  async function consent(form: ReadonlyMap<string, string>, ctx: BrowserContext): Promise<FlowOutcome> {
    const found = await continued(form, ctx);
    if (!('interaction' in found)) return found;
    const { id, interaction } = found;
    const request = interaction.request;
    // Not even a denial goes to the redirect URI of a client that is gone.
    if (!liveClient(request)) return clientGone(request, ctx, id);
    const session = await deps.sessions.get(ctx.browserId!);
    if (!session) return proceed(request, ctx, id, interaction);
    const decision = form.get('decision');
    if (decision === 'deny') {
      await deps.interactions.finish(id);
      deps.events?.raise({ type: 'consent.denied', clientId: request.clientId, subject: session.subject }, ctx.requestId);
      return respondError(request, new AccessDenied('The user denied the request.'));
    }
    if (decision !== 'approve') return proceed(request, ctx, id, interaction);
    await deps.sessions.consentGiven(ctx.browserId!, request.clientId, request.scopes);
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
    // The same page as a request_uri that does not fit: it says nothing about which client ids exist.
    if (!client) throw new UntrustedRequestError('link-used', 'This sign-in link has expired or was already used. Go back to the application and start again.', 'pushed request without a known client_id');
    const found = await deps.pushed.take(params.get('request_uri')!.slice(0, 200), client.clientId);
    if (!found) throw new UntrustedRequestError('link-used', 'This sign-in link has expired or was already used. Go back to the application and start again.', 'request_uri unknown, expired, used or of another client');
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
          return message(400, shownReason(err.reason), params.get('ui_locales'));
        }
        if (err instanceof RedirectableError) {
          deps.logger.info({ reqId: ctx.requestId, error: err.error.code, detail: err.error.logDetail }, 'authorization request refused');
          return { status: 200, response: errorResponse(config.issuer, err.target, err.error), redirectUri: err.target.redirectUri };
        }
        throw err;
      }
      if (!liveClient(request)) return clientGone(request, ctx, undefined);
      const hinted = await withHint(request, ctx);
      if (!('clientId' in hinted)) return hinted;
      return proceed(hinted, ctx, undefined, undefined);
    },
    /** POST of the sign-in and consent pages. */
    async interact(form: ReadonlyMap<string, string>, ctx: BrowserContext): Promise<FlowOutcome> {
      const step = form.get('step');
      if (step === 'sign-in') return signIn(form, ctx);
      if (step === 'consent') return consent(form, ctx);
      if (step === 'upstream') return chooseProvider(form, ctx);
      return message(400, 'start-again');
    },
    /** GET/POST of the external sign-in's callback route. */
    callback: externalCallback,
  };
}

export type AuthorizeFlow = ReturnType<typeof createAuthorizeFlow>;
