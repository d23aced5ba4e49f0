/**
 * OpenID Connect Back-Channel Logout 1.0: when a sign-in session ends, every client that got a
 * code in it and registered a `backchannel_logout_uri` is told, server to server, with a signed
 * logout token (§2.4), so it can end its own session even when the browser never comes back to
 * it. Ending a session only writes what is to be told into the store's queue
 * (`logout-deliveries.ts`), one short write before the browser's answer; the delivery worker of
 * any node (`logout-delivery-worker.ts`) posts it, retries it, and survives this node.
 */
import { randomUUID } from 'node:crypto';
import type { Client } from '../config/schema.js';
import type { Clock, Logger } from '../sdk/contracts.js';
import type { Lookup } from '../clients/client-directory.js';
import type { LogoutDeliveryStore } from '../store/logout-deliveries.js';
import type { SignInSession } from '../sessions/sign-in-sessions.js';

/** §2.4: the one event a logout token carries. */
export const backChannelLogoutEvent = 'http://schemas.openid.net/event/backchannel-logout';
/** §2.4: the `typ` that keeps a logout token from being taken for an ID token (and back). */
export const logoutTokenType = 'logout+jwt';
/** A delivery no worker managed to make within a day is about a sign-out nobody waits for any more. */
export const deliveryLifetimeMs = 86_400_000;

/** The part of a session a logout tells: who, which session, and which clients were in it. */
export type EndedSession = Pick<SignInSession, 'subject' | 'sid' | 'clients'>;

export interface BackChannelLogout {
  /**
   * Queues a logout token for every client of `session` that has a back-channel logout URI and
   * asks this node's worker to post them now; resolves once they are in the store (not when
   * they are delivered). Returns how many were queued.
   */
  notify(session: EndedSession, requestId?: string): Promise<number>;
}

export interface BackChannelLogoutDeps {
  /**
   * The clients, to queue only those with a back-channel logout URI; absent (the CLI), every
   * client of the session is queued and the worker drops those without one.
   */
  clients?: Lookup<Client> | undefined;
  /** Where a client wants to be told, if anywhere (`backchannel_logout_uri`); with `clients`. */
  logoutUriOf?(client: Client): string | undefined;
  deliveries: LogoutDeliveryStore;
  clock: Clock;
  logger: Logger;
  /** This node's worker, told that work is waiting; `undefined` where no worker runs (the CLI). */
  worker?: { kick(): void } | undefined;
}

export function createBackChannelLogout(deps: BackChannelLogoutDeps): BackChannelLogout {
  return {
    async notify(session, requestId) {
      const now = deps.clock.now();
      const queued = session.clients.filter((clientId) => {
        if (deps.clients === undefined) return true;
        const client = deps.clients.get(clientId);
        return client !== undefined && deps.logoutUriOf?.(client) !== undefined;
      }).map((clientId) => ({
        id: randomUUID(), clientId, subject: session.subject, sid: session.sid, ...(requestId === undefined ? {} : { requestId }),
        dueAt: now, createdAt: now, expiresAt: now + deliveryLifetimeMs,
      }));
      if (queued.length === 0) return 0;
      await deps.deliveries.enqueue(queued);
      deps.logger.debug({ reqId: requestId, clients: queued.map((d) => d.clientId) }, 'back-channel logout queued');
      deps.worker?.kick();
      return queued.length;
    },
  };
}
