import type { Logger } from '../sdk/contracts.js';
import type { EventSink, ServiceEvent, ServiceEventType } from './service-event.js';

export interface EventService {
  /** Hands the event to every sink that takes its type, without waiting for them. */
  raise(event: ServiceEvent, requestId?: string): void;
  /** Sets the sinks, once every plugin has built its own; events raised before go nowhere. */
  attach(sinks: readonly EventSink[]): void;
}

export function createEventService(logger: Logger, now: () => number = Date.now): EventService {
  const failed = (err: unknown): void => logger.warn({ err }, 'event sink failed');
  // Events are raised on every request: an event no sink takes costs one map lookup.
  let everyType: readonly EventSink[] = [];
  let byType = new Map<ServiceEventType, EventSink[]>();
  return {
    attach(sinks) {
      everyType = sinks.filter((s) => s.types === undefined);
      byType = new Map();
      for (const sink of sinks) {
        for (const type of new Set(sink.types)) byType.set(type, [...(byType.get(type) ?? everyType), sink]);
      }
    },
    raise(event, requestId) {
      const sinks = byType.get(event.type) ?? everyType;
      if (sinks.length === 0) return;
      // Frozen: every sink sees the same event, whatever an earlier one did with it.
      const raised = Object.freeze({ ...event, time: new Date(now()).toISOString(), ...(requestId ? { requestId } : {}) });
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
