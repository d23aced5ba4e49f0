import type { Logger } from '../sdk/contracts.js';
import type { EventSink, ServiceEventType } from './service-event.js';

const failures: readonly ServiceEventType[] = [
  'token.failed', 'client.authentication_failed', 'api.authentication_failed', 'user.sign_in_failed',
  'client.disabled_used', 'client.expired_secret_used', 'api.disabled_used', 'api.expired_secret_used', 'logout.failed',
];
const quieterThanInfo = new Set(['warn', 'error', 'fatal', 'silent']);

/** The default sink: one structured log line per event, failures at warn. */
export function createLogEventSink({ logger, config }: { logger: Logger; config: { readonly logLevel: string } }): EventSink {
  const events = logger.child({ component: 'events' });
  return {
    // Below info only failures would be written: do not ask for the rest.
    ...(quieterThanInfo.has(config.logLevel) ? { types: failures } : {}),
    handle(event) {
      if (failures.includes(event.type)) events.warn({ event }, event.type);
      else events.info({ event }, event.type);
    },
  };
}
