/**
 * The verification page's steps (RFC 8628 §3.3), without HTTP: enter the user code, sign in,
 * review the client and scopes, approve or deny. Each POST re-checks the code, so nothing a
 * browser sends back is trusted beyond its signed session and CSRF token.
 */
import type { Client } from '../config/schema.js';
import type { Clock, Logger, ResourceOwner, ResourceOwnerValidator } from '../sdk/contracts.js';
import type { EventService } from '../events/event-service.js';
import type { DeviceFlow, DeviceFlowStore, Versioned } from './device-flow-store.js';
import type { Csrf } from './csrf.js';
import type { FailedAttempts } from './failed-attempts.js';
import type { NoticeId, PageView, ScopeLine, TimedMessageId } from './page-views.js';
import { isOAuthError } from '../oauth/errors.js';
import type { PasswordThrottle } from '../oauth/password-throttle.js';
import type { DeviceSession } from './session-cookie.js';
import type { UserCodeScheme } from './user-code.js';
import type { Lookup } from '../clients/client-directory.js';

export interface PageRequest {
  readonly method: 'GET' | 'POST';
  /** `user_code` from the query string (`verification_uri_complete`). */
  readonly queryUserCode: string | undefined;
  /** The POSTed form, flat. */
  readonly form: ReadonlyMap<string, string>;
  /** The valid session from the cookie, if any. */
  readonly session: DeviceSession | undefined;
  readonly remoteAddress: string;
  /** For the events the page raises. */
  readonly requestId?: string | undefined;
}

export interface PageOutcome {
  readonly status: number;
  readonly view: PageView;
  /** A session to set in the cookie. */
  readonly session?: DeviceSession;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface VerificationPageDeps {
  flows: DeviceFlowStore;
  userCodes: UserCodeScheme;
  failedAttempts: FailedAttempts;
  /** The password grant's throttle: guesses for a user count the same on the page and at the token endpoint. */
  passwordThrottle: PasswordThrottle;
  csrf: Csrf;
  newSession(now: number, user?: { subject: string; authTime: number }): DeviceSession;
  users: ResourceOwnerValidator;
  clients: Lookup<Client>;
  scopeDescriptions: ReadonlyMap<string, string | undefined>;
  clock: Clock;
  logger: Logger;
  events?: EventService | undefined;
}

type Found = { readonly userCode: string; readonly flow: Versioned<DeviceFlow>; readonly client: Client };

export function createVerificationPage(deps: VerificationPageDeps) {
  const { flows, userCodes, failedAttempts, csrf, clock } = deps;
  const clientName = (client: Client): string => client.clientName ?? client.clientId;
  /** What the user typed, echoed back into the field (the renderer escapes it). */
  const echo = (input: string | undefined): string => {
    if (input === undefined) return '';
    const normalized = userCodes.normalize(input);
    return normalized ? userCodes.display(normalized) : input.slice(0, 32);
  };

  function enterCode(session: DeviceSession, status: number, userCode: string, notice?: NoticeId): PageOutcome {
    return { status, view: { kind: 'enter-code', csrf: csrf.tokenFor(session.sid), userCode, ...(notice ? { notice } : {}) } };
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

  /** Counts the attempt against the username and address; a page when the caller must wait first. */
  async function throttleSignIn(username: string, address: string): Promise<PageOutcome | undefined> {
    try {
      await deps.passwordThrottle.attempt(username, address, clock.now());
      return undefined;
    } catch (err) {
      if (!isOAuthError(err) || err.status !== 429) throw err;
      return tooManyAttempts(clock.now() + Number(err.headers['Retry-After']) * 1000, 'too-many-sign-ins');
    }
  }

  /** Finds a pending flow for the typed code; wrong codes count against the address (RFC 8628 §5.1). */
  async function lookUp(input: string | undefined, request: PageRequest, session: DeviceSession): Promise<Found | PageOutcome> {
    const blocked = await failedAttempts.blockedUntil(request.remoteAddress);
    if (blocked !== undefined) return tooManyAttempts(blocked);
    if (input === undefined) return enterCode(session, 400, '', 'code-missing');
    const userCode = userCodes.normalize(input);
    const flow = userCode === undefined ? undefined : await flows.getFlow(userCode);
    const client = flow && deps.clients.get(flow.value.clientId);
    if (userCode === undefined || !flow || !client) {
      const nowBlocked = await failedAttempts.recordFailure(request.remoteAddress);
      if (nowBlocked !== undefined) return tooManyAttempts(nowBlocked);
      return enterCode(session, 400, echo(input), 'code-unknown');
    }
    if (clock.now() >= flow.value.expiresAt) return enterCode(session, 400, echo(input), 'code-expired');
    if (flow.value.status !== 'pending') return enterCode(session, 400, echo(input), 'code-used');
    return { userCode, flow, client };
  }

  async function signedInUser(session: DeviceSession): Promise<ResourceOwner | undefined> {
    return session.subject === undefined ? undefined : deps.users.findBySubject(session.subject);
  }

  function signIn(session: DeviceSession, found: Found, status: number, extra: { username?: string; notice?: NoticeId } = {}): PageOutcome {
    return {
      status,
      view: {
        kind: 'sign-in', csrf: csrf.tokenFor(session.sid), userCode: userCodes.display(found.userCode), clientName: clientName(found.client), ...extra,
      },
    };
  }

  /** RFC 8628 §5.4: name the client and show the code, so someone tricked into entering another's code can notice. */
  function consent(session: DeviceSession, user: ResourceOwner, found: Found): PageOutcome {
    const scopes: ScopeLine[] = found.flow.value.scopes.map((name) => ({ name, description: deps.scopeDescriptions.get(name) }));
    return {
      status: 200,
      view: {
        kind: 'consent', csrf: csrf.tokenFor(session.sid), userCode: userCodes.display(found.userCode),
        clientName: clientName(found.client), scopes, username: user.username,
      },
    };
  }

  async function codeStep(request: PageRequest, session: DeviceSession): Promise<PageOutcome> {
    const found = await lookUp(request.form.get('user_code'), request, session);
    if ('status' in found) return found;
    const user = await signedInUser(session);
    return user ? consent(session, user, found) : signIn(session, found, 200);
  }

  async function signInStep(request: PageRequest, session: DeviceSession): Promise<PageOutcome> {
    const found = await lookUp(request.form.get('user_code'), request, session);
    if ('status' in found) return found;
    const username = request.form.get('username');
    const password = request.form.get('password');
    if (username === undefined || password === undefined) {
      return signIn(session, found, 400, { ...(username ? { username } : {}), notice: 'credentials-missing' });
    }
    const throttled = await throttleSignIn(username, request.remoteAddress);
    if (throttled) return throttled;
    const user = await deps.users.validate(username, password);
    if (!user) {
      await deps.passwordThrottle.failed(request.remoteAddress, clock.now());
      deps.events?.raise({ type: 'user.sign_in_failed', via: 'device_page', reason: 'wrong username or password' }, request.requestId);
      return signIn(session, found, 400, { username, notice: 'credentials-wrong' });
    }
    await deps.passwordThrottle.succeeded(username, request.remoteAddress);
    deps.events?.raise({ type: 'user.signed_in', subject: user.subjectId, via: 'device_page' }, request.requestId);
    // A fresh session id on sign-in: a session (or CSRF token) planted before it is worth nothing after.
    const signedIn = deps.newSession(clock.now(), { subject: user.subjectId, authTime: Math.floor(clock.now() / 1000) });
    return { ...consent(signedIn, user, found), session: signedIn };
  }

  async function consentStep(request: PageRequest, session: DeviceSession): Promise<PageOutcome> {
    const found = await lookUp(request.form.get('user_code'), request, session);
    if ('status' in found) return found;
    const user = await signedInUser(session);
    if (!user || session.authTime === undefined) return signIn(session, found, 401, { notice: 'sign-in-required' });
    const decision = request.form.get('decision');
    if (decision !== 'approve' && decision !== 'deny') return consent(session, user, found);
    const previous = found.flow;
    const next: DeviceFlow =
      decision === 'approve'
        ? { ...previous.value, status: 'approved', subject: user.subjectId, authTime: session.authTime }
        : { ...previous.value, status: 'denied' };
    // Pending -> approved/denied exactly once, whichever node gets there first.
    if (!(await flows.setFlow(found.userCode, previous, next))) return enterCode(session, 409, '', 'code-used');
    deps.logger.info({ clientId: found.client.clientId, subject: user.subjectId, decision }, 'device authorization decided');
    deps.events?.raise(
      { type: decision === 'approve' ? 'device.approved' : 'device.denied', clientId: found.client.clientId, subject: user.subjectId },
      request.requestId,
    );
    return { status: 200, view: { kind: 'done', approved: decision === 'approve', clientName: clientName(found.client) } };
  }

  return async function handle(request: PageRequest): Promise<PageOutcome> {
    const now = clock.now();
    if (request.method === 'GET') {
      const session = request.session ?? deps.newSession(now);
      const outcome = enterCode(session, 200, echo(request.queryUserCode));
      return request.session ? outcome : { ...outcome, session };
    }
    // Every state-changing POST carries the CSRF token of its session.
    if (!request.session || !csrf.verify(request.session.sid, request.form.get('csrf'))) {
      return {
        status: 403,
        session: request.session ?? deps.newSession(now),
        view: { kind: 'message', message: 'form-expired' },
      };
    }
    const session = request.session;
    switch (request.form.get('step')) {
      case 'code':
        return codeStep(request, session);
      case 'sign-in':
        return signInStep(request, session);
      case 'consent':
        return consentStep(request, session);
      case 'sign-out': {
        const anonymous = deps.newSession(now);
        return { ...enterCode(anonymous, 200, echo(request.form.get('user_code'))), session: anonymous };
      }
      default:
        return enterCode(session, 400, '', 'code-missing');
    }
  };
}

export type VerificationPage = ReturnType<typeof createVerificationPage>;
