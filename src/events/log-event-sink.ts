import type { Logger } from '../sdk/contracts.js';
import type { EventSink, ServiceEventType } from './service-event.js';

const failures: readonly ServiceEventType[] = [
  'token.failed', 'client.authentication_failed', 'api.authentication_failed', 'user.sign_in_failed',
  'client.disabled_used', 'client.expired_secret_used', 'api.disabled_used', 'api.expired_secret_used', 'logout.failed',
];
/**
 * Steps of a request whose outcome is an event of its own: a client or an API authenticated
 * (then `token.issued`, `token.introspected`, `token.revoked`, `device.authorized`, ... or a
 * failure at warn), a code redeemed (then `token.issued`, which names the grant type). Written
 * at debug, as IdentityServer logs a successful client validation: at info they doubled or
 * tripled the lines of every token request, each line costing the request a few microseconds
 * (issue 40), and said nothing the outcome's line does not (who, for which client). Every sink
 * still gets them, and metrics count them.
 */
const steps: ReadonlySet<ServiceEventType> = new Set(['client.authenticated', 'api.authenticated', 'code.redeemed']);
const quieterThanInfo = new Set(['warn', 'error', 'fatal', 'silent']);

/** The default sink: one structured log line per event, failures at warn, steps of a request at debug. */
export function createLogEventSink({ logger, config }: { logger: Logger; config: { readonly logLevel: string } }): EventSink {
  const events = logger.child({ component: 'events' });
  return {
    // Below info only failures would be written: do not ask for the rest.
    ...(quieterThanInfo.has(config.logLevel) ? { types: failures } : {}),
    handle(event) {
      if (failures.includes(event.type)) events.warn({ event }, event.type);
      else if (steps.has(event.type)) events.debug({ event }, event.type);
      else events.info({ event }, event.type);
    },
  };
}
