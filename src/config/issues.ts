/**
 * Turns what a zod schema found wrong into the config's boot messages: one line per problem, led
 * by the field path as the user wrote it (`clients[2].allowedGrantTypes[0]: expected a non-empty
 * string, got number 42`), an unknown field with the closest known name and the list of known
 * ones, and the lines in the order of the declaration: unknown fields of an object first, then
 * its fields as declared, a list's entries before what is said of the whole list.
 * The messages themselves come from the declaration (`src/sdk/fields.ts`).
 */
import type * as z from 'zod';
import { didYouMean } from './closest-name.js';

type Path = readonly PropertyKey[];

/** A problem found by a check across fields (`cross-checks.ts`), placed like a schema's. */
export interface Problem {
  readonly path: Path;
  readonly message: string;
  /** Where the line goes among the others, when not at its own path (a field judged for another's sake). */
  readonly placeAt?: Path;
}

interface Def {
  readonly type: string;
  readonly innerType?: z.core.$ZodType;
  readonly in?: z.core.$ZodType;
  readonly shape?: Record<string, z.core.$ZodType>;
  readonly element?: z.core.$ZodType;
  readonly valueType?: z.core.$ZodType;
}

const defOf = (schema: z.core.$ZodType): Def => schema._zod.def as unknown as Def;

/** The schema under defaults, optionals and transforms. */
function unwrap(schema: z.core.$ZodType): z.core.$ZodType {
  let s = schema;
  for (;;) {
    const def = defOf(s);
    if (def.innerType && ['optional', 'default', 'prefault', 'nullable', 'readonly', 'catch', 'nonoptional'].includes(def.type)) s = def.innerType;
    else if (def.type === 'pipe' && def.in) s = def.in;
    else return s;
  }
}

/** The field names an object schema declares, in order. */
export function knownFields(schema: z.core.$ZodType): readonly string[] {
  const def = defOf(unwrap(schema));
  return def.type === 'object' && def.shape ? Object.keys(def.shape) : [];
}

interface Placed {
  readonly line: string;
  /** Position of each object field and object list entry along the path, in the declaration. */
  readonly order: readonly number[];
  readonly seq: number;
}

/** `clients[0].clientSecrets[1]`, `plugins["delegation"]`; where each step lies in the declaration. */
function place(root: z.core.$ZodType, path: Path, unknownKey?: string): { at: string; order: number[] } {
  let at = '';
  const order: number[] = [];
  let schema: z.core.$ZodType | undefined = root;
  let ordered = true;
  const steps = unknownKey === undefined ? path : [...path, unknownKey];
  steps.forEach((segment, i) => {
    const s = schema === undefined ? undefined : unwrap(schema);
    const def = s === undefined ? undefined : defOf(s);
    const isUnknown = unknownKey !== undefined && i === steps.length - 1;
    if (typeof segment === 'number') {
      at += `[${segment}]`;
      const element = def?.type === 'array' ? def.element : undefined;
      const entryIsObject = element !== undefined && defOf(unwrap(element)).type === 'object';
      if (ordered && entryIsObject) order.push(segment);
      else ordered = false;
      schema = element;
    } else if (def?.type === 'record') {
      at += `["${String(segment)}"]`;
      ordered = false;
      schema = def.valueType;
    } else {
      at += at === '' ? String(segment) : `.${String(segment)}`;
      const shape = def?.type === 'object' ? def.shape : undefined;
      if (ordered && shape) order.push(isUnknown ? -1 : Object.keys(shape).indexOf(String(segment)));
      else ordered = false;
      schema = shape?.[String(segment)];
    }
  });
  return { at: at === '' ? '(config)' : at, order };
}

function compare(a: Placed, b: Placed): number {
  const n = Math.min(a.order.length, b.order.length);
  for (let i = 0; i < n; i++) if (a.order[i] !== b.order[i]) return a.order[i]! - b.order[i]!;
  // One path inside the other: what is said of an entry comes before what is said of its list.
  if (a.order.length !== b.order.length) return b.order.length - a.order.length;
  return a.seq - b.seq;
}

/** One line per problem, in the declaration's order. */
export function problemLines(root: z.core.$ZodType, issues: readonly z.core.$ZodIssue[], more: readonly Problem[] = []): string[] {
  const placed: Placed[] = [];
  const add = (path: Path, message: string, unknownKey?: string, placeAt?: Path): void => {
    const { at } = place(root, path, unknownKey);
    const { order } = place(root, placeAt ?? path, unknownKey);
    placed.push({ line: `${at}: ${message}`, order, seq: placed.length });
  };
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      const known = knownFields(schemaAt(root, issue.path));
      for (const key of issue.keys) add(issue.path, `unknown field${didYouMean(key, known)} (known: ${known.join(', ')})`, key);
    } else {
      add(issue.path, issue.message);
    }
  }
  for (const problem of more) add(problem.path, problem.message, undefined, problem.placeAt);
  return placed.sort(compare).map((p) => p.line);
}

function schemaAt(root: z.core.$ZodType, path: Path): z.core.$ZodType {
  let schema = root;
  for (const segment of path) {
    const def = defOf(unwrap(schema));
    const next = typeof segment === 'number' ? def.element : def.type === 'record' ? def.valueType : def.shape?.[String(segment)];
    if (next === undefined) return schema;
    schema = next;
  }
  return schema;
}
