/**
 * Signing in with our own form: the page (a `SignInMethod`), and its POST judged by `users`
 * (or a plugin's `SignInPage` check) behind the password throttle, which counts a wrong password
 * here, on the device page and at the token endpoint alike.
 */
import type { EventService } from '../../events/event-service.js';
import type { ResourceOwnerValidator, SignInResult } from '../../sdk/contracts.js';
import type { ThrottledSignIn } from '../../throttling/throttled-sign-in.js';
import type { SignInNoticeId, SignInView } from '../../pages/sign-in-views.js';
import { isContinued, type InteractionContinuation } from './continued-interaction.js';
import { clientName, languageOf, pageMessage, type FlowOutcome } from '../flow-outcome.js';
import type { InteractionHandler } from './flow-step.js';
import type { LiveClients } from './live-client.js';
import type { SignedIn } from './signed-in.js';
import type { SignInMethod } from './sign-in-step.js';
import type { UpstreamChoice } from './upstream-choice.js';

/** Judges the sign-in form in place of `username` and `password` against `users`. */
export type SignInCheck = (form: ReadonlyMap<string, string>, context: { remoteAddress?: string | undefined }) => Promise<SignInResult>;

export interface SignInForm extends SignInMethod {
  /** POST of the sign-in page (`step=sign-in`). */
  readonly submit: InteractionHandler;
}

/** A plugin's `amr`: up to ten short method names (RFC 8176 §2), else none. */
export function methodsOf(amr: unknown): readonly string[] | undefined {
  if (!Array.isArray(amr) || amr.length === 0 || amr.length > 10) return undefined;
  return amr.every((m) => typeof m === 'string' && /^[\w.:-]{1,64}$/.test(m)) ? [...new Set(amr as string[])] : undefined;
}

/** A plugin's answer names a subject: anything else is a refusal. */
const signedInSubject = (result: SignInResult): boolean =>
  typeof result === 'object' && result !== null && 'subject' in result && typeof result.subject === 'string' && result.subject !== '';

export function createSignInForm(deps: {
  users: Pick<ResourceOwnerValidator, 'validate'>;
  authenticate?: SignInCheck | undefined;
  throttle: ThrottledSignIn;
  continuation: InteractionContinuation;
  live: LiveClients;
  signedIn: SignedIn;
  events?: EventService | undefined;
  /** Issue 34: the identity providers offered beside the form, shown again with it after a wrong password. */
  choice?: UpstreamChoice | undefined;
  /** Issue 35: a passkey sign-in offered beside the form (`passkey-sign-in.ts`). */
  passkeyOptions?: (() => Promise<string>) | undefined;
}): SignInForm {
  const { continuation, live } = deps;
  return {
    async start(state, id, browserId) {
      const { client, request } = state;
      const passkeyOptions = deps.passkeyOptions && (await deps.passkeyOptions());
      const view: SignInView = {
        kind: 'sign-in', interaction: id, csrf: continuation.tokenFor(browserId, id), clientId: client.clientId, clientName: clientName(client), username: request.loginHint,
        ...(passkeyOptions ? { passkeyOptions } : {}),
      };
      return { status: 200, view, redirectUri: request.redirectUri, ...languageOf(request) };
    },

    async submit(form, ctx) {
      const found = await continuation.continued(form, ctx);
      if (!isContinued(found)) return found;
      const { id, interaction } = found;
      const request = interaction.request;
      const client = live.liveClient(request);
      if (!client) return live.clientGone(request, ctx, id);
      const username = (form.get('username') ?? '').slice(0, 256);
      const password = (form.get('password') ?? '').slice(0, 1024);
      const custom = deps.authenticate;
      const offered = deps.choice?.pageParts();
      const again = (status: number, said: { notice: SignInNoticeId } | { message: string }, headers?: Record<string, string>): FlowOutcome => ({
        status, redirectUri: request.redirectUri, ...(headers ? { headers } : {}), ...languageOf(request),
        ...(offered?.formTargets ? { formTargets: offered.formTargets } : {}),
        view: { kind: 'sign-in', interaction: id, csrf: continuation.tokenFor(ctx.browserId!, id), clientId: client.clientId, clientName: clientName(client), username, ...said, ...offered?.view },
      });
      // Issue 34: only the providers' buttons are offered; a POSTed password is not even looked at.
      if (deps.choice?.passwordFormHidden) return pageMessage(400, 'start-again', request.uiLocales);
      if (!custom && (username === '' || password === '')) return again(200, { notice: 'credentials-missing' });
      const judge = (): Promise<SignInResult> => custom
        ? custom(form, { remoteAddress: ctx.remoteAddress })
        : deps.users.validate(username, password).then((u): SignInResult => (u ? { subject: u.subjectId } : { message: '' }));
      const checked = await deps.throttle.attempt(username, ctx.remoteAddress, judge, signedInSubject);
      if (checked.outcome === 'throttled') {
        deps.events?.raise({ type: 'user.sign_in_failed', via: 'sign_in_page', reason: 'throttled' }, ctx.requestId);
        return again(429, { notice: 'too-many-sign-ins' }, { 'Retry-After': String(checked.retryAfterSeconds) });
      }
      const result = checked.result as Partial<Record<'subject' | 'message' | 'amr', unknown>> | null;
      if (checked.outcome === 'rejected' || typeof result?.subject !== 'string') {
        deps.events?.raise({ type: 'user.sign_in_failed', via: 'sign_in_page', reason: 'rejected by the sign-in check' }, ctx.requestId);
        // A plugin's own words when it gave some; else ours, in the reader's language.
        return again(200, typeof result?.message === 'string' && result.message !== '' ? { message: result.message.slice(0, 500) } : { notice: 'credentials-wrong' });
      }
      // RFC 8176 `pwd` for our own username and password check; a plugin's check says how itself, if at all.
      return deps.signedIn(result.subject, ctx, id, interaction, 'sign_in_page', custom ? methodsOf(result.amr) : ['pwd']);
    },
  };
}
