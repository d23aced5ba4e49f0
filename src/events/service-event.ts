/** The event types are part of the plugin contract (event sinks), so they live in the SDK. */
export type { EventSink, RaisedEvent, ServiceEvent, ServiceEventType } from '../sdk/events.js';
