/**
 * The back-channel logout worker every node runs (issue 37): it claims due deliveries from the
 * store's queue (`logout-deliveries.ts`) under a lease, posts each (`logout-token-sender.ts`),
 * and on failure schedules the next attempt with exponential back-off, until `maxAttempts`,
 * then gives up. A node that dies mid-delivery leaves a lease that runs out, and any node's next
 * look takes the delivery again: at least once, as Back-Channel Logout §2.8 wants a client that
 * was down to be tried again.
 *
 * Each outcome is a `logout.notified` event (`delivered`, else the `reason`), and giving up is a
 * `logout.failed` event; never the token.
 */
import type { EventService } from '../events/event-service.js';
import type { Clock, Logger } from '../sdk/contracts.js';
import type { ClaimedDelivery, LogoutDeliveryStore } from '../store/logout-deliveries.js';
import type { LogoutTokenSender } from './logout-token-sender.js';

export interface LogoutDeliverySettings {
  /** How often the store is looked at without a kick (retries, another node's leftovers). */
  readonly pollIntervalMs: number;
  readonly maxAttempts: number;
  /** Before the first retry; doubled for each next one. */
  readonly retryDelayMs: number;
  /** How long a claim is held: longer than one post may take, so a live node is never overtaken. */
  readonly leaseMs: number;
  /** Claimed per look; more follow at once when a look comes back full. */
  readonly batchSize?: number;
}

export interface LogoutDeliveryWorker {
  /** Work was queued on this node: look now rather than at the next poll. */
  kick(): void;
  /** One look (and the looks a full batch leads to), for tests and tools; resolves when its posts are done. */
  runNow(): Promise<void>;
  /** Stops polling; resolves when the posts in flight are done. */
  stop(): Promise<void>;
}

export interface LogoutDeliveryWorkerDeps {
  deliveries: LogoutDeliveryStore;
  send: LogoutTokenSender;
  clock: Clock;
  logger: Logger;
  events?: EventService | undefined;
  settings: LogoutDeliverySettings;
}

/** Milliseconds to wait after failed attempt `attempt` (1-based): the delay, doubled each time. */
export const backOff = (retryDelayMs: number, attempt: number): number => retryDelayMs * 2 ** (attempt - 1);

export function startLogoutDeliveryWorker(deps: LogoutDeliveryWorkerDeps): LogoutDeliveryWorker {
  const { deliveries, clock, logger, settings } = deps;
  const batchSize = settings.batchSize ?? 20;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;

  function outcome(d: ClaimedDelivery, reason: string | undefined): void {
    const delivered = reason === undefined;
    logger.info({ reqId: d.requestId, clientId: d.clientId, delivered, attempt: d.attempts, ...(reason ? { reason } : {}) }, 'back-channel logout');
    // The sign-out's request id: the event ties back to the request that ended the session.
    deps.events?.raise({ type: 'logout.notified', clientId: d.clientId, subject: d.subject, delivered, attempt: d.attempts, ...(reason ? { reason } : {}) }, d.requestId);
  }

  function giveUp(d: ClaimedDelivery, reason: string): void {
    logger.warn({ reqId: d.requestId, clientId: d.clientId, attempts: d.attempts, reason }, 'back-channel logout given up');
    deps.events?.raise({ type: 'logout.failed', clientId: d.clientId, subject: d.subject, attempts: d.attempts, reason }, d.requestId);
  }

  async function deliver(d: ClaimedDelivery): Promise<void> {
    if (clock.now() > d.expiresAt) {
      if (await deliveries.finish(d.id, d.claim)) giveUp(d, 'no attempt in time');
      return;
    }
    const sent = await deps.send(d);
    if (sent === 'not-wanted') {
      logger.debug({ clientId: d.clientId }, 'back-channel logout: the client has no back-channel logout URI');
      await deliveries.finish(d.id, d.claim);
      return;
    }
    const failed = sent === 'delivered' ? undefined : sent;
    outcome(d, failed?.reason);
    if (failed === undefined) {
      await deliveries.finish(d.id, d.claim);
    } else if (!failed.retry || d.attempts >= settings.maxAttempts) {
      // A lost claim (the lease ran out and another node took it) leaves the row to that node.
      if (await deliveries.finish(d.id, d.claim)) giveUp(d, failed.reason);
    } else {
      await deliveries.retryAt(d.id, d.claim, clock.now() + backOff(settings.retryDelayMs, d.attempts));
    }
  }

  async function look(): Promise<void> {
    for (;;) {
      const claimed = await deliveries.claim(clock.now(), settings.leaseMs, batchSize);
      await Promise.all(claimed.map((d) => deliver(d).catch((err: unknown) => logger.warn({ err, clientId: d.clientId }, 'back-channel logout delivery failed'))));
      if (stopped || claimed.length < batchSize) return;
    }
  }

  function run(): Promise<void> {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        await look().catch((err: unknown) => logger.warn({ err }, 'back-channel logout: reading the queue failed'));
      } while (again && !stopped);
    })().finally(() => {
      running = undefined;
    });
    return running;
  }

  // A chained timeout rather than setInterval: a slow look never overlaps the next one.
  function schedule(): void {
    if (stopped) return;
    timer = setTimeout(() => void run().finally(schedule), settings.pollIntervalMs);
    timer.unref();
  }
  schedule();

  return {
    kick() {
      if (!stopped) void run();
    },
    runNow: run,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
