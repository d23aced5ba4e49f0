/**
 * The verification page's steps (RFC 8628 §3.3), without HTTP: enter the user code, sign in,
 * review the client and scopes, approve or deny. Each POST re-checks the code, so nothing a
 * browser sends back is trusted beyond its signed cookie and CSRF token.
 *
 * The page signs in with the same sign-in session as /connect/authorize (single sign-on): a
 * person already signed in there goes from the code straight to the consent step, which names
 * them ("Signed in as ...", with a way to sign out) next to the client and the code to compare
 * (RFC 8628 §5.4). A fresh password adds nothing against remote phishing, where the victim is
 * the one who would type it; what protects them is seeing which device asks.
 */
import type { SecondFactorService } from '../second-factor/second-factors.js';
import type { PasskeyService } from '../second-factor/passkeys.js';
import { acrMultiFactor, acrOf } from '../authorize/acr.js';
import type { Client } from '../config/schema.js';
import type { Clock, Logger, ResourceOwner, ResourceOwnerValidator } from '../sdk/contracts.js';
import type { EventService } from '../events/event-service.js';
import type { DeviceFlow, DeviceFlowStore, Versioned } from './device-flow-store.js';
import type { Csrf } from '../pages/csrf.js';
import type { SignInSession, SignInSessions } from '../sessions/sign-in-sessions.js';
import type { FailedAttempts } from '../throttling/failed-attempts.js';
import type { NoticeId, PageView, ScopeDescriptions, ScopeLine, TimedMessageId } from '../pages/device-views.js';
import { createThrottledSignIn } from '../throttling/throttled-sign-in.js';
import type { PasswordThrottle } from '../throttling/password-throttle.js';
import type { UserCodeScheme } from './user-code.js';
import type { Lookup } from '../clients/client-directory.js';

export interface PageRequest {
  readonly method: 'GET' | 'POST';
  /** `user_code` from the query string (`verification_uri_complete`). */
  readonly queryUserCode: string | undefined;
  /** The POSTed form, flat. */
  readonly form: ReadonlyMap<string, string>;
  /** The browser id of a valid cookie, if any. */
  readonly browserId: string | undefined;
  readonly remoteAddress: string;
  /** For the events the page raises. */
  readonly requestId?: string | undefined;
}

export interface PageOutcome {
  readonly status: number;
  readonly view: PageView;
  /** A browser id to set in the cookie (a new browser, a sign-in, a sign-out). */
  readonly browserId?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface VerificationPageDeps {
  flows: DeviceFlowStore;
  userCodes: UserCodeScheme;
  failedAttempts: FailedAttempts;
  /** The password grant's throttle: guesses for a user count the same on the page and at the token endpoint. */
  passwordThrottle: PasswordThrottle;
  csrf: Csrf;
  /** The sign-in sessions every page shares. */
  sessions: SignInSessions;
  newBrowserId(): string;
  users: ResourceOwnerValidator;
  clients: Lookup<Client>;
  scopeDescriptions: ScopeDescriptions;
  clock: Clock;
  logger: Logger;
  events?: EventService | undefined;
  /**
   * Issue 35: one-time codes. A user who has them signs in here with the password and a code
   * (the page asks for both), and a session that did not give one does not count here.
   */
  secondFactors?: Pick<SecondFactorService, 'hasActive' | 'verify' | 'status'> | undefined;
  /**
   * With `secondFactor.passkeys`: the sign-in form offers "Sign in with a passkey" (and the
   * username field's autofill), passwordless as on the authorization pages. A user whose only
   * factor is a passkey has no code to type: after the right password the page says to use it.
   */
  passkeys?: PasskeyService | undefined;
  /**
   * Issue 35: the scopes of APIs with `requiredAcr: 'mfa'`. A session without a second factor
   * (a person who has none) cannot approve a flow for one: the page says to set one up first,
   * rather than the device learning only `invalid_grant` when it polls.
   */
  mfaScopes?: ReadonlySet<string> | undefined;
}

type Found = { readonly userCode: string; readonly flow: Versioned<DeviceFlow>; readonly client: Client };

/** The browser a POST comes from: its cookie's id, and its sign-in session if it has one. */
interface Browser {
  readonly id: string;
  readonly session: SignInSession | undefined;
}

export function createVerificationPage(deps: VerificationPageDeps) {
  const { flows, userCodes, failedAttempts, clock } = deps;
  const signInThrottle = createThrottledSignIn({ passwordThrottle: deps.passwordThrottle, clock });
  // Bound to the browser id: it changes at sign-in and sign-out, and so does the token.
  const csrfFor = (browserId: string): string => deps.csrf.tokenFor(`device:${browserId}`);
  const clientName = (client: Client): string => client.clientName ?? client.clientId;
  /** What the user typed, echoed back into the field (the renderer escapes it). */
  const echo = (input: string | undefined): string => {
    if (input === undefined) return '';
    const normalized = userCodes.normalize(input);
    return normalized ? userCodes.display(normalized) : input.slice(0, 32);
  };

  function enterCode(browserId: string, status: number, userCode: string, notice?: NoticeId): PageOutcome {
    return { status, view: { kind: 'enter-code', csrf: csrfFor(browserId), userCode, ...(notice ? { notice } : {}) } };
  }

  function tooManyAttempts(until: number, message: TimedMessageId = 'too-many-attempts'): PageOutcome {
    const now = clock.now();
    const minutes = Math.max(1, Math.ceil((until - now) / 60_000));
    return {
      status: 429,
      headers: { 'Retry-After': String(Math.max(1, Math.ceil((until - now) / 1000))) },
      view: { kind: 'message', message, minutes, until: new Date(until).toISOString().slice(11, 16) },
    };
  }

  /** Finds a pending flow for the typed code; wrong codes count against the address (RFC 8628 §5.1). */
  async function lookUp(input: string | undefined, request: PageRequest, browser: Browser): Promise<Found | PageOutcome> {
    const bid = browser.id;
    const blocked = await failedAttempts.blockedUntil(request.remoteAddress);
    if (blocked !== undefined) return tooManyAttempts(blocked);
    if (input === undefined) return enterCode(bid, 400, '', 'code-missing');
    const userCode = userCodes.normalize(input);
    const flow = userCode === undefined ? undefined : await flows.getFlow(userCode);
    const client = flow && deps.clients.get(flow.value.clientId);
    if (userCode === undefined || !flow || !client) {
      const nowBlocked = await failedAttempts.recordFailure(request.remoteAddress);
      if (nowBlocked !== undefined) return tooManyAttempts(nowBlocked);
      return enterCode(bid, 400, echo(input), 'code-unknown');
    }
    if (clock.now() >= flow.value.expiresAt) return enterCode(bid, 400, echo(input), 'code-expired');
    if (flow.value.status !== 'pending') return enterCode(bid, 400, echo(input), 'code-used');
    return { userCode, flow, client };
  }

  async function signedInUser(browser: Browser): Promise<ResourceOwner | undefined> {
    const session = browser.session;
    if (session === undefined) return undefined;
    // A session from the password step of a sign-in whose code was never given is not signed in.
    if (acrOf(session.amr) !== acrMultiFactor && (await deps.secondFactors?.hasActive(session.subject))) return undefined;
    return deps.users.findBySubject(session.subject);
  }

  async function signIn(browserId: string, found: Found, status: number, extra: { username?: string; notice?: NoticeId; askSecondFactor?: boolean } = {}): Promise<PageOutcome> {
    // A fresh challenge each time the form is shown, as on the authorization pages.
    const passkeyOptions = deps.passkeys && JSON.stringify(await deps.passkeys.authenticationOptions(undefined));
    return {
      status,
      view: {
        kind: 'sign-in', csrf: csrfFor(browserId), userCode: userCodes.display(found.userCode), clientName: clientName(found.client), ...extra,
        ...(passkeyOptions === undefined ? {} : { passkeyOptions }),
      },
    };
  }

  /** A page in place of the consent step when the flow asks for an API that needs a second factor the session did not give. */
  function secondFactorNeeded(found: Found, amr: readonly string[] | undefined): PageOutcome | undefined {
    if (acrOf(amr) === acrMultiFactor || !found.flow.value.scopes.some((s) => deps.mfaScopes?.has(s) === true)) return undefined;
    return { status: 403, view: { kind: 'message', message: 'second-factor-needed' } };
  }

  /** A signed-in person (a new browser id, so nothing planted before counts after) at the consent step. */
  async function startSession(browser: Browser, user: ResourceOwner, found: Found, amr: readonly string[], via: string, requestId: string | undefined): Promise<PageOutcome> {
    deps.events?.raise({ type: 'user.signed_in', subject: user.subjectId, via }, requestId);
    const signedIn = deps.newBrowserId();
    await deps.sessions.start(signedIn, user.subjectId, browser.session && { browserId: browser.id, session: browser.session }, [...amr]);
    await deps.sessions.end(browser.id);
    return { ...(secondFactorNeeded(found, amr) ?? consent(signedIn, user, found)), browserId: signedIn };
  }

  /** RFC 8628 §5.4: name the client and show the code, so someone tricked into entering another's code can notice. */
  function consent(browserId: string, user: ResourceOwner, found: Found): PageOutcome {
    const scopes: ScopeLine[] = found.flow.value.scopes.map((name) => ({ name, description: deps.scopeDescriptions.get(name) }));
    return {
      status: 200,
      view: {
        kind: 'consent', csrf: csrfFor(browserId), userCode: userCodes.display(found.userCode),
        clientName: clientName(found.client), scopes, resources: found.flow.value.resources, username: user.username,
      },
    };
  }

  async function codeStep(request: PageRequest, browser: Browser): Promise<PageOutcome> {
    const found = await lookUp(request.form.get('user_code'), request, browser);
    if ('status' in found) return found;
    const user = await signedInUser(browser);
    if (!user) return signIn(browser.id, found, 200);
    return secondFactorNeeded(found, browser.session?.amr) ?? consent(browser.id, user, found);
  }

  async function signInStep(request: PageRequest, browser: Browser): Promise<PageOutcome> {
    const bid = browser.id;
    const found = await lookUp(request.form.get('user_code'), request, browser);
    if ('status' in found) return found;
    const username = request.form.get('username');
    const password = request.form.get('password');
    if (username === undefined || password === undefined) {
      return signIn(bid, found, 400, { ...(username ? { username } : {}), notice: 'credentials-missing' });
    }
    const checked = await signInThrottle.attempt(username, request.remoteAddress, () => deps.users.validate(username, password), (u) => u !== undefined);
    if (checked.outcome === 'throttled') return tooManyAttempts(clock.now() + checked.retryAfterSeconds * 1000, 'too-many-sign-ins');
    const user = checked.result;
    if (!user) {
      deps.events?.raise({ type: 'user.sign_in_failed', via: 'device_page', reason: 'wrong username or password' }, request.requestId);
      return signIn(bid, found, 400, { username, notice: 'credentials-wrong' });
    }
    let amr = ['pwd'];
    if (await deps.secondFactors?.hasActive(user.subjectId)) {
      // Issue 35: a passkey is their only factor, so no code can follow the password: the passkey then.
      const factors = await deps.secondFactors!.status(user.subjectId);
      if (deps.passkeys && factors.totp !== 'active' && factors.recoveryCodesLeft === 0) {
        return signIn(bid, found, 200, { username, notice: 'passkey-required' });
      }
      const code = (request.form.get('code') ?? '').slice(0, 64).trim();
      if (code === '') return signIn(bid, found, 200, { username, notice: 'second-factor-required', askSecondFactor: true });
      const given = await deps.secondFactors!.verify(user.subjectId, code, request.remoteAddress, 'device_page');
      if (given.outcome === 'throttled') return tooManyAttempts(clock.now() + given.retryAfterSeconds * 1000, 'too-many-sign-ins');
      if (given.outcome === 'rejected') return signIn(bid, found, 400, { username, notice: 'second-factor-wrong', askSecondFactor: true });
      amr = ['pwd', 'otp', 'mfa'];
    }
    return startSession(browser, user, found, amr, 'device_page', request.requestId);
  }

  /**
   * Issue 35: a passkey alone (a discoverable credential, the device verifying the person: two
   * factors, RFC 8176 `mfa`), checked as on the authorization pages.
   */
  async function passkeyStep(request: PageRequest, browser: Browser): Promise<PageOutcome> {
    const found = await lookUp(request.form.get('user_code'), request, browser);
    if ('status' in found) return found;
    if (!deps.passkeys) return signIn(browser.id, found, 400);
    const used = await deps.passkeys.authenticate((request.form.get('response') ?? '').slice(0, 20_000), undefined, 'device_page');
    const user = used && (await deps.users.findBySubject(used.subject));
    if (!used || !user) {
      deps.events?.raise({ type: 'user.sign_in_failed', via: 'device_page', reason: used ? 'user disabled or gone' : 'passkey not accepted' }, request.requestId);
      return signIn(browser.id, found, 400, { notice: 'passkey-failed' });
    }
    return startSession(browser, user, found, [...used.amr, ...(used.amr.includes('user') ? ['mfa'] : [])], 'device_page', request.requestId);
  }

  async function consentStep(request: PageRequest, browser: Browser): Promise<PageOutcome> {
    const bid = browser.id;
    const found = await lookUp(request.form.get('user_code'), request, browser);
    if ('status' in found) return found;
    const user = await signedInUser(browser);
    if (!user || browser.session === undefined) return signIn(bid, found, 401, { notice: 'sign-in-required' });
    const decision = request.form.get('decision');
    if (decision !== 'approve' && decision !== 'deny') return consent(bid, user, found);
    if (decision === 'approve') {
      const needed = secondFactorNeeded(found, browser.session.amr);
      if (needed) return needed;
    }
    const previous = found.flow;
    const next: DeviceFlow =
      decision === 'approve'
        ? { ...previous.value, status: 'approved', subject: user.subjectId, authTime: browser.session.authTime, ...(browser.session.amr ? { amr: browser.session.amr } : {}), ...(browser.session.idp ? { idp: browser.session.idp } : {}) }
        : { ...previous.value, status: 'denied' };
    // Pending -> approved/denied exactly once, whichever node gets there first.
    if (!(await flows.setFlow(found.userCode, previous, next))) return enterCode(bid, 409, '', 'code-used');
    deps.logger.info({ clientId: found.client.clientId, subject: user.subjectId, decision }, 'device authorization decided');
    deps.events?.raise(
      { type: decision === 'approve' ? 'device.approved' : 'device.denied', clientId: found.client.clientId, subject: user.subjectId },
      request.requestId,
    );
    return { status: 200, view: { kind: 'done', approved: decision === 'approve', clientName: clientName(found.client) } };
  }

  /** "Not you? Sign out": a sign-out of the shared session, as at /connect/endsession. */
  async function signOut(request: PageRequest, browser: Browser): Promise<PageOutcome> {
    if (browser.session) {
      const { revoked } = await deps.sessions.signOut(browser.id);
      deps.logger.info({ reqId: request.requestId, revoked }, 'device page: signed out; the tokens of the session\'s codes revoked');
      deps.events?.raise({ type: 'user.signed_out', subject: browser.session.subject, clientId: undefined }, request.requestId);
    }
    const anonymous = deps.newBrowserId();
    return { ...enterCode(anonymous, 200, echo(request.form.get('user_code'))), browserId: anonymous };
  }

  return async function handle(request: PageRequest): Promise<PageOutcome> {
    if (request.method === 'GET') {
      const browserId = request.browserId ?? deps.newBrowserId();
      const outcome = enterCode(browserId, 200, echo(request.queryUserCode));
      return request.browserId ? outcome : { ...outcome, browserId };
    }
    // Every state-changing POST carries the CSRF token of its browser id.
    if (!request.browserId || !deps.csrf.verify(`device:${request.browserId}`, request.form.get('csrf'))) {
      return {
        status: 403,
        ...(request.browserId ? {} : { browserId: deps.newBrowserId() }),
        view: { kind: 'message', message: 'form-expired' },
      };
    }
    const browser: Browser = { id: request.browserId, session: await deps.sessions.get(request.browserId) };
    switch (request.form.get('step')) {
      case 'code':
        return codeStep(request, browser);
      case 'sign-in':
        return signInStep(request, browser);
      case 'consent':
        return consentStep(request, browser);
      case 'passkey':
        return passkeyStep(request, browser);
      case 'sign-out':
        return signOut(request, browser);
      default:
        return enterCode(browser.id, 400, '', 'code-missing');
    }
  };
}

export type VerificationPage = ReturnType<typeof createVerificationPage>;
