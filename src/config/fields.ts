/**
 * Builders for config fields (zod 4 schemas) whose error messages say what was expected and what
 * was found, e.g. `expected a whole number from 0 to 300, got number 2.5`. The config
 * (`schema.ts`) and the registered model (`model.ts`) are declared with them, so every boot
 * message reads the same; the field path is put in front by the one reader of the issues
 * (`issues.ts`). Each builder takes an optional description, shown in the JSON Schema for
 * editors and in the generated config reference.
 */
import * as z from 'zod';

/** How a found value is shown in a message: never more than 40 characters of a string. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `"${value.length > 40 ? `${value.slice(0, 40)}...` : value}"`;
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}

type Issue = { readonly code?: string; readonly input?: unknown };

/** A non-empty string, at most `max` characters. */
export function text(options: { max?: number; description?: string } = {}) {
  const { max } = options;
  const error = (iss: Issue): string => {
    if (iss.input === undefined) return 'required, expected a non-empty string';
    if (iss.code === 'too_big' && max !== undefined) return `longer than ${max} characters`;
    return `expected a non-empty string, got ${describeValue(iss.input)}`;
  };
  const base = z.string({ error }).min(1, { error });
  return withDescription(max === undefined ? base : base.max(max, { error }), options.description);
}

/** Any string, empty too (names and descriptions shown to people). */
export function anyText(options: { description?: string; message?: string } = {}) {
  const error = (iss: Issue): string => options.message ?? `expected a string, got ${describeValue(iss.input)}`;
  return withDescription(z.string({ error }), options.description);
}

/** A whole number from `min` to `max`. */
export function wholeNumber(min: number, max: number = Number.MAX_SAFE_INTEGER, description?: string) {
  const error = (iss: Issue): string => `expected a whole number from ${min} to ${max}, got ${describeValue(iss.input)}`;
  return withDescription(z.int({ error }).min(min, { error }).max(max, { error }), description);
}

/** `true` or `false`. */
export function flag(description?: string) {
  return withDescription(z.boolean({ error: (iss) => `expected true or false, got ${describeValue(iss.input)}` }), description);
}

/** One of a few strings, listed in the message. */
export function oneOf<const T extends readonly [string, ...string[]]>(values: T, description?: string) {
  const error = (iss: Issue): string => `unknown value ${describeValue(iss.input)} (allowed: ${values.join(', ')})`;
  return withDescription(z.enum(values, { error }), description);
}

/** A list; a missing required one says so. */
export function list<T extends z.ZodType>(item: T, description?: string) {
  const error = (iss: Issue): string => (iss.input === undefined ? 'required, expected an array' : `expected an array, got ${describeValue(iss.input)}`);
  return withDescription(z.array(item, { error }), description);
}

/** A list of non-empty strings. */
export function textList(description?: string) {
  return list(text(), description);
}

/**
 * An object that rejects unknown fields (named by the host with the closest known one).
 * `expected` is what a wrong value is told it should be, e.g. `{ name, description? }`.
 */
export function fields<T extends z.ZodRawShape>(shape: T, options: { expected?: string; description?: string } = {}) {
  const expected = options.expected ?? 'an object';
  const error = (iss: Issue): string => `expected ${expected}, got ${describeValue(iss.input)}`;
  return withDescription(z.strictObject(shape, { error }), options.description);
}

function withDescription<T extends z.ZodType>(schema: T, description: string | undefined): T {
  return description === undefined ? schema : schema.describe(description);
}

/** Where a hand-written checker reports: a field path and a message (`checkedBy`, `cross-checks.ts`). */
export interface Problems {
  add(path: string, message: string): void;
}

export { z };

/** `a.b[2].c` as a path of keys: `['a', 'b', 2, 'c']` (a leading dot is the field itself). */
export function pathOf(text: string): PropertyKey[] {
  return [...text.matchAll(/([^.[\]]+)|\[(\d+)\]/g)].map((m) => (m[2] === undefined ? m[1]! : Number(m[2])));
}

/**
 * A field whose rules are written as a checker (`add(path, message)` per problem, `path`
 * relative to the field): its issues reach the same reader, with the same paths, as every
 * other field's. Typed as `T`, which the checker vouches for.
 */
export function checkedBy<T>(check: (add: (path: string, message: string) => void, value: unknown) => void, description?: string) {
  const schema = z.custom<T>(() => true).superRefine((value, ctx) => {
    check((path, message) => ctx.addIssue({ code: 'custom', input: value, path: pathOf(path), message }), value);
  });
  return withDescription(schema, description);
}
