import type { Logger } from '../sdk/contracts.js';
import type { EventSink } from './service-event.js';

/** The default sink: one structured log line per event, failures at warn. */
export function createLogEventSink({ logger }: { logger: Logger }): EventSink {
  const events = logger.child({ component: 'events' });
  return {
    handle(event) {
      const failure = event.type.endsWith('failed');
      if (failure) events.warn({ event }, event.type);
      else events.info({ event }, event.type);
    },
  };
}
