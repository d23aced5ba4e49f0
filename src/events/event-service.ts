import type { Logger } from '../sdk/contracts.js';
import type { EventSink, ServiceEvent } from './service-event.js';

export interface EventService {
  /** Hands the event to every sink without waiting for them. */
  raise(event: ServiceEvent, requestId?: string): void;
}

export function createEventService(sinks: readonly EventSink[], logger: Logger, now: () => number = Date.now): EventService {
  const failed = (err: unknown): void => logger.warn({ err }, 'event sink failed');
  return {
    raise(event, requestId) {
      if (sinks.length === 0) return;
      const raised = { ...event, time: new Date(now()).toISOString(), ...(requestId ? { requestId } : {}) };
      for (const sink of sinks) {
        try {
          const pending = sink.handle(raised);
          if (pending) pending.catch(failed);
        } catch (err) {
          failed(err);
        }
      }
    },
  };
}
