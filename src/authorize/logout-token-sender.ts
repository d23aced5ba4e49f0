/**
 * One back-channel logout delivery (OpenID Connect Back-Channel Logout 1.0 §2.5): a fresh logout
 * token signed for the client, posted as a form to its URI through the guarded fetch
 * (`src/net/guarded-fetch.ts`: the same address rules as every server-side fetch, no redirect
 * followed, one time-out). Answers why it was not delivered, in words fit for a log line and an
 * event; never the token.
 */
import { randomUUID } from 'node:crypto';
import type { Client } from '../config/schema.js';
import type { Clock } from '../sdk/contracts.js';
import type { Lookup } from '../clients/client-directory.js';
import type { KeyRing } from '../oauth/keys/key-ring.js';
import { signToken } from '../oauth/keys/signing-key.js';
import { defaultIdTokenAlgorithm } from '../oauth/id-token-issuer.js';
import { FetchRefused, type GuardedFetch } from '../net/guarded-fetch.js';
import type { Tracing } from '../tracing/tracing.js';
import type { LogoutDelivery } from '../store/logout-deliveries.js';
import { backChannelLogoutEvent, logoutTokenType } from './back-channel-logout.js';

/** Long enough for a slow client, short enough that it is still about this sign-out. */
const logoutTokenLifetimeSeconds = 120;

/** Why a delivery failed; `retry: false` when trying again cannot help (the client is gone). */
export interface NotDelivered {
  readonly reason: string;
  readonly retry: boolean;
}

/**
 * `"delivered"`; `"not-wanted"` when the client (no longer) has a back-channel logout URI, or is
 * gone (`svc users disable` queues every client of a session without knowing their URIs);
 * else why not.
 */
export type LogoutTokenSender = (delivery: LogoutDelivery) => Promise<NotDelivered | 'delivered' | 'not-wanted'>;

export interface LogoutTokenSenderDeps {
  issuer: string;
  clients: Lookup<Client>;
  logoutUriOf(client: Client): string | undefined;
  keyRing: Pick<KeyRing, 'signingKey'>;
  clock: Clock;
  tracing: Tracing;
  /** Made with `allowHttp`, `okStatuses: [200, 204]` and the deployment's allowed addresses. */
  fetch: GuardedFetch;
  /** For the reason of a time-out. */
  timeoutMs: number;
}

export function createLogoutTokenSender(deps: LogoutTokenSenderDeps): LogoutTokenSender {
  async function logoutToken(client: Client, delivery: LogoutDelivery): Promise<string> {
    // Signed as the client's ID tokens are, so it verifies with what the client already trusts (§2.6).
    const alg = client.allowedIdentityTokenSigningAlgorithms[0] ?? defaultIdTokenAlgorithm;
    const key = deps.keyRing.signingKey(alg);
    const now = Math.floor(deps.clock.now() / 1000);
    // §2.4: iss, aud, iat, exp, jti, events, and sub and sid (both: the session and its user); never a nonce.
    // `sid` is always sent, so a client with backchannelLogoutSessionRequired (§2.2) always gets it.
    const claims = {
      iss: deps.issuer, aud: client.clientId, iat: now, exp: now + logoutTokenLifetimeSeconds, jti: randomUUID(),
      sub: delivery.subject, sid: delivery.sid, events: { [backChannelLogoutEvent]: {} },
    };
    return signToken(deps.tracing, 'sign logout_token', key, { alg, typ: logoutTokenType, kid: key.kid }, claims);
  }

  function reasonOf(err: unknown): NotDelivered {
    if (!(err instanceof FetchRefused)) return { reason: 'not reachable', retry: true };
    switch (err.reason) {
      // §2.8: 200 OK when the logout succeeded; 204 is what many clients send for it. A redirect is not an answer (§2.5).
      case 'status': case 'redirect': return { reason: (err.logDetail ?? 'status ?').replace('status', 'answered'), retry: true };
      case 'timeout': return { reason: `no answer within ${deps.timeoutMs} ms`, retry: true };
      case 'address-refused': return { reason: 'its address may not be posted to (backchannelLogout.allowedAddresses)', retry: false };
      case 'not-https': return { reason: 'not an http(s) URL', retry: false };
      case 'too-large': return { reason: 'answered too much', retry: true };
      default: return { reason: 'not reachable', retry: true };
    }
  }

  return async (delivery) => {
    const client = deps.clients.get(delivery.clientId);
    const uri = client === undefined ? undefined : deps.logoutUriOf(client);
    if (client === undefined || uri === undefined) return 'not-wanted';
    try {
      await deps.fetch(new URL(uri), { form: new URLSearchParams({ logout_token: await logoutToken(client, delivery) }) });
      return 'delivered';
    } catch (err) {
      return reasonOf(err);
    }
  };
}
