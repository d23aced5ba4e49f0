/**
 * The store with a span around each call a request makes (`store <operation>`), used only when
 * tracing is on.
 * A span names the operation and the database, never a key or a record: keys are token and
 * code handles.
 */
import { trace } from '@opentelemetry/api';
import type { Store } from '../store/store.js';
import type { Tracing } from './tracing.js';

const operations = [
  'add', 'get', 'consume', 'commit', 'update', 'remove', 'removeAll', 'listGrants', 'removeStored', 'findAll', 'removeExpired', 'countExpired',
  'listSigningKeys', 'addSigningKey', 'updateSigningKey', 'removeSigningKey', 'ping',
] as const satisfies ReadonlyArray<keyof Store>;

export function tracedStore(store: Store, tracing: Tracing, system: string): Store {
  // The store's other members (migrate, close, anything a backend adds) come through the prototype.
  const traced = Object.create(store) as Record<string, unknown>;
  for (const operation of operations) {
    const call = (store[operation] as (...args: unknown[]) => Promise<unknown>).bind(store);
    const attributes = { 'db.system.name': system, 'db.operation.name': operation };
    // Only inside a traced request: the key ring's reloads and the expired-record sweeps would
    // otherwise start a trace of their own every minute on every node.
    traced[operation] = (...args: unknown[]) =>
      trace.getActiveSpan() === undefined ? call(...args) : tracing.span(`store ${operation}`, attributes, () => call(...args));
  }
  return traced as unknown as Store;
}
