/**
 * A stand-in for a service that exists only after a later start-up step. The plugins are built,
 * and the config checked against them, before the store is opened (nothing is written for a
 * config that start-up refuses), yet a plugin's dependencies name the store and the key ring:
 * they get these stand-ins, which forward to the real ones once `bind` has them. Used before
 * that — a plugin touching its store while it is being built — it throws, naming what is
 * missing. Services made after start-up get the real ones (`container.ts`), not a stand-in.
 */
export interface LateBound<T extends object> {
  readonly value: T;
  bind(target: T): void;
}

export function lateBound<T extends object>(what: string): LateBound<T> {
  let target: T | undefined;
  // Methods bound once each, so a forwarded call costs one map lookup.
  const bound = new Map<PropertyKey, unknown>();
  const value = new Proxy({} as T, {
    get(_, prop) {
      if (target === undefined) {
        // Not a thenable, nothing to inspect: `await` and `console.log` of a stand-in stay harmless.
        if (prop === 'then' || typeof prop === 'symbol') return undefined;
        throw new Error(`${what} is not open yet: it is opened once the config has passed every check (used "${prop}" too early)`);
      }
      let member = bound.get(prop);
      if (member === undefined) {
        member = Reflect.get(target, prop) as unknown;
        if (typeof member === 'function') member = (member as (...args: unknown[]) => unknown).bind(target);
        bound.set(prop, member);
      }
      return member;
    },
  });
  return {
    value,
    bind(t) {
      target = t;
    },
  };
}
