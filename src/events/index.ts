import type { Plugin } from '../sdk/contracts.js';
import { createLogEventSink } from './log-event-sink.js';

/** The default event sink, registered through the same call as a plugin folder's sinks. */
export const logEvents: Plugin = {
  name: 'log-events',
  eventSinks: [createLogEventSink],
};
