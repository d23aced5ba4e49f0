import type { Plugin } from '../sdk/contracts.js';
import { createLogEventSink } from './log-event-sink.js';

/** The default event sink, registered through the same call as a plugin folder's sinks. */
export function logEvents(logLevel: string): Plugin {
  return {
    name: 'log-events',
    eventSinks: [({ logger }) => createLogEventSink({ logger, config: { logLevel } })],
  };
}
