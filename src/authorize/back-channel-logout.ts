/**
 * OpenID Connect Back-Channel Logout 1.0: when a sign-in session ends, every client that got a
 * code in it and registered a `backchannel_logout_uri` is told, server to server, with a signed
 * logout token (§2.4), so it can end its own session even when the browser never comes back to
 * it. The browser's sign-out does not wait for the clients: each is told in the background,
 * with a time-out, and how it went is a log line and a `logout.notified` event, never the token.
 */
import { randomUUID } from 'node:crypto';
import type { Client } from '../config/schema.js';
import type { EventService } from '../events/event-service.js';
import type { Clock, Logger } from '../sdk/contracts.js';
import type { Lookup } from '../clients/client-directory.js';
import type { KeyRing } from '../oauth/keys/key-ring.js';
import { signToken } from '../oauth/keys/signing-key.js';
import { defaultIdTokenAlgorithm } from '../oauth/id-token-issuer.js';
import type { Tracing } from '../tracing/tracing.js';
import type { SignInSession } from '../sessions/sign-in-sessions.js';

/** §2.4: the one event a logout token carries. */
export const backChannelLogoutEvent = 'http://schemas.openid.net/event/backchannel-logout';
/** §2.4: the `typ` that keeps a logout token from being taken for an ID token (and back). */
export const logoutTokenType = 'logout+jwt';
/** Long enough for a slow client, short enough that it is still about this sign-out. */
const logoutTokenLifetimeSeconds = 120;

export interface BackChannelLogout {
  /**
   * Tells every client of `session` that has a back-channel logout URI, in the background; the
   * promise settles when all have answered or timed out (tests and shutdown may wait for it).
   */
  notify(session: SignInSession, requestId?: string): Promise<void>;
}

export interface BackChannelLogoutDeps {
  issuer: string;
  clients: Lookup<Client>;
  /** Where a client wants to be told, if anywhere (`backchannel_logout_uri`). */
  logoutUriOf(client: Client): string | undefined;
  keyRing: Pick<KeyRing, 'signingKey'>;
  clock: Clock;
  logger: Logger;
  events?: EventService | undefined;
  tracing: Tracing;
  /** Per client; a client that does not answer in time is logged as not told. */
  timeoutMs?: number;
  /** The HTTP client (tests may count calls); `fetch` by default. */
  fetch?: typeof fetch;
}

export function createBackChannelLogout(deps: BackChannelLogoutDeps): BackChannelLogout {
  const post = deps.fetch ?? fetch;
  const timeoutMs = deps.timeoutMs ?? 5000;

  async function logoutToken(client: Client, session: SignInSession): Promise<string> {
    // Signed as the client's ID tokens are, so it verifies with what the client already trusts (§2.6).
    const alg = client.allowedIdentityTokenSigningAlgorithms[0] ?? defaultIdTokenAlgorithm;
    const key = deps.keyRing.signingKey(alg);
    const now = Math.floor(deps.clock.now() / 1000);
    // §2.4: iss, aud, iat, exp, jti, events, and sub and sid (both: the session and its user); never a nonce.
    const claims = {
      iss: deps.issuer, aud: client.clientId, iat: now, exp: now + logoutTokenLifetimeSeconds, jti: randomUUID(),
      sub: session.subject, sid: session.sid, events: { [backChannelLogoutEvent]: {} },
    };
    return signToken(deps.tracing, 'sign logout_token', key, { alg, typ: logoutTokenType, kid: key.kid }, claims);
  }

  async function tell(client: Client, uri: string, session: SignInSession, requestId: string | undefined): Promise<void> {
    let reason: string | undefined;
    try {
      const response = await post(uri, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ logout_token: await logoutToken(client, session) }).toString(),
        // §2.5: the client answers itself; a redirect is not an answer (and could point anywhere).
        redirect: 'manual',
        signal: AbortSignal.timeout(timeoutMs),
      });
      await response.body?.cancel();
      // §2.8: 200 OK when the logout succeeded; 204 is what many clients send for it.
      if (response.status !== 200 && response.status !== 204) reason = `answered ${response.status}`;
    } catch (err) {
      reason = (err as Error).name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : 'not reachable';
    }
    const delivered = reason === undefined;
    deps.logger.info({ reqId: requestId, clientId: client.clientId, delivered, ...(reason ? { reason } : {}) }, 'back-channel logout');
    deps.events?.raise({ type: 'logout.notified', clientId: client.clientId, subject: session.subject, delivered, ...(reason ? { reason } : {}) }, requestId);
  }

  return {
    async notify(session, requestId) {
      const told: Promise<void>[] = [];
      for (const clientId of session.clients) {
        const client = deps.clients.get(clientId);
        const uri = client === undefined ? undefined : deps.logoutUriOf(client);
        if (client && uri) told.push(tell(client, uri, session, requestId));
      }
      await Promise.all(told);
    },
  };
}
