/**
 * Redaction of secret-bearing field names from what a log line carries: the logged object, an
 * error's serialized fields and a child logger's bindings. A field whose name is in the set is
 * written as the censor, at any depth (down to `maxDepth`), in objects and in arrays.
 *
 * Why not pino's `redact` option: it compiles each `*.name` path into its own redactor and, on a
 * line that matches any of them, deep-clones the value it redacts; with the host's and the
 * plugins' names (about 30 paths) it cost ~8 µs per line, two thirds of an `info` line at the
 * token endpoint (issue 21). Here a line walks its own keys once, each a `Set` lookup, and
 * copies an object only when one of its fields is actually censored: the caller's object (an
 * event is frozen) is never changed. Going deeper than pino's `name` and `*.name` paths is
 * deliberate, a field nested one level further is no less secret.
 */
import { pino } from 'pino';

/** Nesting beyond this is written as it is (log lines are small; this bounds a cycle's cost). */
const maxDepth = 6;

/** Marks an error this module already serialized, so pino's own `err` serializer leaves it be. */
const serialized = Symbol('svc.log.serialized-error');

const serializeError = pino.stdSerializers.err;

/** pino's `err` serializer for a logger that redacts: errors reach it redacted already. */
export function errSerializer(value: unknown): unknown {
  return typeof value === 'object' && value !== null && serialized in value ? value : serializeError(value as Error);
}

export type FieldRedactor = <T>(fields: T) => T;

/**
 * A function returning `fields` itself when nothing in it is secret, else a copy with every
 * secret-named field censored. The `err` field is serialized as pino would (`stdSerializers.err`)
 * first, so the fields of an error and of its causes are checked too.
 */
export function fieldRedactor(secretNames: Iterable<string>, censor: string): FieldRedactor {
  const secret = new Set(secretNames);

  function value(input: unknown, depth: number): unknown {
    if (typeof input !== 'object' || input === null || depth > maxDepth) return input;
    if (ArrayBuffer.isView(input) || input instanceof Date || typeof (input as { toJSON?: unknown }).toJSON === 'function') return input;
    if (Array.isArray(input)) {
      let copy: unknown[] | undefined;
      for (let i = 0; i < input.length; i++) {
        const next = value(input[i], depth + 1);
        if (next !== input[i]) (copy ??= input.slice())[i] = next;
      }
      return copy ?? input;
    }
    return object(input as Record<string, unknown>, depth);
  }

  function object(input: Record<string, unknown>, depth: number): Record<string, unknown> {
    let copy: Record<string, unknown> | undefined;
    for (const key of Object.keys(input)) {
      const current = input[key];
      const next = secret.has(key) ? (current === undefined ? current : censor) : value(current, depth + 1);
      if (next !== current) (copy ??= { ...input })[key] = next;
    }
    return copy ?? input;
  }

  return function redact<T>(fields: T): T {
    if (typeof fields !== 'object' || fields === null) return fields;
    const record = fields as Record<string, unknown>;
    const err = record.err;
    if (!(err instanceof Error)) return object(record, 0) as T;
    // As pino would write it (type, message, stack, its own fields, its causes), then checked.
    const plain = value(serializeError(err), 1) as object;
    Object.defineProperty(plain, serialized, { value: true });
    return object({ ...record, err: plain }, 0) as T;
  };
}
