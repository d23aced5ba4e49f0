/**
 * Issue 34: signing out at the upstream identity provider too (RP-Initiated Logout 1.0 at the
 * provider, per provider `logoutAtProvider`). When our logout ends a session that signed in
 * there, the browser goes to the provider's `end_session_endpoint` first, and comes back to
 * `/connect/endsession/callback` with the `state` we gave; only then does our logout's own
 * answer follow (the client's `post_logout_redirect_uri`, or the signed-out page). Where to go
 * next is kept in the store under that `state` (its hash, `hashKey`), single-use and
 * short-lived, so the provider's answer cannot send the browser anywhere we did not choose.
 */
import { newHandle } from '../oauth/handles.js';
import type { Clock, ExternalSignIn, Logger } from '../sdk/contracts.js';
import type { Store } from '../store/store.js';

const recordType = 'upstream_logout';
/** Long enough for a provider's own "sign out?" page. */
const lifetimeMs = 10 * 60 * 1000;
const stateShape = /^[0-9a-f]{12}[\w-]{43}$/;

interface Continuation {
  /** Our logout's redirect (the client's URI with its `state`); absent: the signed-out page. */
  readonly location?: string;
  readonly uiLocales?: string;
}

export interface UpstreamLogout {
  /** The provider's logout URL to send the browser to, or `undefined` (sign out here only). */
  start(logoutHint: string, next: Continuation): Promise<string | undefined>;
  /**
   * The providers' origins, for the "sign out?" page's CSP `form-action`: its POST is answered
   * with our redirect to the provider, which the browser holds to that directive.
   */
  targets(): readonly string[];
  /** Back from the provider: where to go on; `undefined` when `state` is unknown, used or expired. */
  finish(state: string | undefined): Promise<Continuation | undefined>;
}

export function createUpstreamLogout(deps: {
  external: Pick<ExternalSignIn, 'endSession' | 'providers'>;
  store: Pick<Store, 'add' | 'consume'>;
  callbackUrl: string;
  clock: Clock;
  logger: Logger;
}): UpstreamLogout {
  return {
    async start(logoutHint, next) {
      const state = newHandle();
      const now = deps.clock.now();
      await deps.store.add({
        key: state, type: recordType, clientId: '', subjectId: undefined, sessionId: undefined,
        createdAt: now, expiresAt: now + lifetimeMs, consumedAt: undefined, data: JSON.stringify(next),
      });
      const location = await deps.external.endSession?.(logoutHint, { postLogoutRedirectUri: deps.callbackUrl, state });
      if (location === undefined) return undefined;
      const url = new URL(location);
      if (url.protocol !== 'https:' && url.protocol !== 'http:') {
        deps.logger.warn({}, 'upstream logout: the provider\'s logout URL is not http(s); signed out here only');
        return undefined;
      }
      return url.href;
    },
    targets: () => [...new Set((deps.external.providers ?? []).flatMap((p) => (p.formAction ? [p.formAction] : [])))],
    async finish(state) {
      if (state === undefined || !stateShape.test(state)) return undefined;
      const record = await deps.store.consume(state, deps.clock.now());
      if (!record || record.type !== recordType) return undefined;
      return JSON.parse(record.data) as Continuation;
    },
  };
}
