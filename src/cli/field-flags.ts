/**
 * Issue 39: every field a client or API resource has is reachable by a flag of `svc clients` /
 * `svc apis`, derived from the config's own declaration (`src/config/model.ts`), so a field
 * added there has its flag without an edit here: `allowOfflineAccess` is `--allow-offline-access`
 * (and `--no-allow-offline-access`), `accessTokenLifetime` is `--access-token-lifetime 600`,
 * `postLogoutRedirectUris` is `--post-logout-redirect-uri <uri>` (repeatable). Fields whose value
 * is an object (secrets, `properties`) stay with `--definition '<json>'` and the secret commands.
 * Messages about a field name its flag, since that is what the person typed.
 *
 * The client fields the package's own plugins declare (issue 32) get flags the same way, from
 * the JSON Schema of their declaration (`pluginFieldFlags`): `allowedSubjectTokenAudiences` is
 * `--allowed-subject-token-audience <name>` (repeatable). They are loaded only for the commands
 * that take them (`Command.pluginFieldFlags`); a deployment's own plugin's field is set with
 * `--definition`.
 */
import { z } from 'zod';
import { apiResourceSchema, clientSchema } from '../config/model.js';
import { packageClientFields } from '../plugin-host/package-client-fields.js';
import { CliError } from './user-facing-error.js';

export type FieldKind = 'boolean' | 'number' | 'text' | 'list';

export interface FieldFlag {
  readonly field: string;
  readonly flag: string;
  readonly kind: FieldKind;
}

/** The short flags older than this file; each stands for one field. */
const aliases = {
  client: { clientName: 'name', allowedGrantTypes: 'grant', allowedScopes: 'scope', redirectUris: 'redirect-uri' },
  apiResource: { scopes: 'scope' },
} as const satisfies Record<'client' | 'apiResource', Record<string, string>>;

/** Set by the positional id or by other commands, never by a flag. */
const noFlag = new Set(['clientId', 'name', 'clientSecrets', 'secrets']);

function kindOf(schema: z.ZodType): FieldKind | undefined {
  let inner: z.ZodType = schema;
  while (inner instanceof z.ZodDefault || inner instanceof z.ZodOptional) inner = inner.unwrap() as z.ZodType;
  if (inner instanceof z.ZodBoolean) return 'boolean';
  if (inner instanceof z.ZodNumber) return 'number';
  if (inner instanceof z.ZodString || inner instanceof z.ZodEnum) return 'text';
  if (inner instanceof z.ZodArray) return kindOf(inner.element as z.ZodType) === 'text' ? 'list' : undefined;
  return undefined;
}

/** `allowOfflineAccess` → `allow-offline-access`; `requireDPoP` → `require-dpop` (DPoP is one word). */
const kebab = (field: string): string => field.replace('DPoP', 'Dpop').replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** A list field's flag names one item: `redirectUris` → `--redirect-uri`. */
const singular = (flag: string): string => flag.replace(/ies$/, 'y').replace(/(?<!s)s$/, '');

function flagsOf(kind: 'client' | 'apiResource'): FieldFlag[] {
  const shape = (kind === 'client' ? clientSchema : apiResourceSchema).shape as Record<string, z.ZodType>;
  const named: Record<string, string> = aliases[kind];
  return Object.entries(shape).flatMap(([field, schema]) => {
    const fieldKind = kindOf(schema);
    if (fieldKind === undefined || noFlag.has(field)) return [];
    const flag = named[field] ?? (fieldKind === 'list' ? singular(kebab(field)) : kebab(field));
    return [{ field, flag, kind: fieldKind }];
  });
}

export const fieldFlags = { client: flagsOf('client'), apiResource: flagsOf('apiResource') } as const;

/** What a flag can say of a value its JSON Schema describes: a boolean, a number, a string, a list of strings. */
function kindOfJson(schema: Readonly<Record<string, unknown>> | undefined): FieldKind | undefined {
  switch (schema?.type) {
    case 'boolean': return 'boolean';
    case 'integer':
    case 'number': return 'number';
    case 'string': return 'text';
    case 'array': return kindOfJson(schema.items as Readonly<Record<string, unknown>> | undefined) === 'text' ? 'list' : undefined;
    default: return undefined;
  }
}

/**
 * The flags of the client fields the package's plugins declare; none where a command already
 * has an option of that name (`taken`) or a service field has the flag.
 */
export async function pluginFieldFlags(taken: Iterable<string> = []): Promise<FieldFlag[]> {
  const used = new Set([...taken, ...fieldFlags.client.map((f) => f.flag), ...fieldFlags.apiResource.map((f) => f.flag)]);
  return (await packageClientFields()).flatMap(({ field }) => {
    const kind = kindOfJson(field.jsonSchema);
    if (kind === undefined) return [];
    const flag = kind === 'list' ? singular(kebab(field.name)) : kebab(field.name);
    return used.has(flag) || used.has(`no-${flag}`) ? [] : [{ field: field.name, flag, kind }];
  });
}

type OptionSpec = { type: 'string' | 'boolean'; multiple?: boolean };

/** The `parseArgs` options of every field flag of both kinds, and of `extra` (a boolean one also as `--no-…`). */
export function fieldFlagOptions(extra: readonly FieldFlag[] = []): Record<string, OptionSpec> {
  const options: Record<string, OptionSpec> = {};
  for (const f of [...fieldFlags.client, ...fieldFlags.apiResource, ...extra]) {
    if (f.kind === 'boolean') {
      options[f.flag] = { type: 'boolean' };
      options[`no-${f.flag}`] = { type: 'boolean' };
    } else {
      options[f.flag] = f.kind === 'list' ? { type: 'string', multiple: true } : { type: 'string' };
    }
  }
  return options;
}

/**
 * The fields the given flags set, for one kind (a client's with the plugins' `pluginFlags`); a
 * flag of the other kind only is refused by name.
 */
export function fieldsFromFlags(kind: 'client' | 'apiResource', values: Readonly<Record<string, unknown>>, pluginFlags: readonly FieldFlag[] = []): Record<string, unknown> {
  const def: Record<string, unknown> = {};
  const mine = kind === 'client' ? [...fieldFlags.client, ...pluginFlags] : fieldFlags.apiResource;
  for (const f of mine) {
    const value = values[f.flag];
    if (f.kind === 'boolean') {
      if (value === true && values[`no-${f.flag}`] === true) throw new CliError(`--${f.flag} and --no-${f.flag} contradict each other; give one.`);
      if (value === true) def[f.field] = true;
      else if (values[`no-${f.flag}`] === true) def[f.field] = false;
    } else if (f.kind === 'number' && typeof value === 'string') {
      if (!/^\d{1,15}$/.test(value)) throw new CliError(`--${f.flag} takes a whole number, got "${value}".`);
      def[f.field] = Number(value);
    } else if (value !== undefined) {
      def[f.field] = value;
    }
  }
  const other = fieldFlags[kind === 'client' ? 'apiResource' : 'client'];
  for (const f of other) {
    if (mine.some((m) => m.flag === f.flag)) continue;
    if (values[f.flag] !== undefined || values[`no-${f.flag}`] !== undefined) {
      throw new CliError(`--${f.flag} is a field of ${kind === 'client' ? 'API resources (svc apis)' : 'clients (svc clients)'}, not of ${kind === 'client' ? 'clients' : 'API resources'}.`);
    }
  }
  return def;
}

/** The flags of one kind for the help text (`[--access-token-lifetime <n>] [--[no-]allow-offline-access]`), in lines of at most `width`. */
export function flagSynopsis(kind: 'client' | 'apiResource', width = 66): string[] {
  const named = new Set<string>(Object.values(aliases[kind]));
  const items = fieldFlags[kind].filter((f) => !named.has(f.flag)).map((f) =>
    `[${f.kind === 'boolean' ? `--[no-]${f.flag}` : f.kind === 'number' ? `--${f.flag} <n>` : f.kind === 'list' ? `--${f.flag} <value>...` : `--${f.flag} <value>`}]`);
  const lines: string[] = [];
  for (const item of items) {
    const last = lines.length - 1;
    if (last >= 0 && lines[last]!.length + 1 + item.length <= width) lines[last] += ` ${item}`;
    else lines.push(item);
  }
  return lines;
}

/**
 * A problem the config's checks found (`client "foo".allowedScopes[0]: unknown scope "openid"`),
 * in the words of the command line (`--scope openid: unknown scope "openid"`); a suggestion
 * such as `set allowOfflineAccess: true` names the flag too.
 */
export function inFlagWords(kind: 'client' | 'apiResource', problem: string, given: Readonly<Record<string, unknown>>, pluginFlags: readonly FieldFlag[] = []): string {
  const flags = kind === 'client' ? [...fieldFlags.client, ...pluginFlags] : fieldFlags.apiResource;
  const flagOf = new Map(flags.map((f) => [f.field, f]));
  const located = /^(?:client|API resource) "[^"]*"\.(\w+)(?:\[(\d+)\])?: (.*)$/s.exec(problem);
  let text = problem;
  if (located) {
    const [, field, index, message] = located;
    const f = flagOf.get(field!);
    const typed = f !== undefined && (given[f.flag] !== undefined || given[`no-${f.flag}`] !== undefined);
    // A field set through --definition keeps its config name; a missing one is told by its flag.
    if (f !== undefined && (typed || /^required\b/.test(message!))) {
      const values = given[f.flag];
      const item = index !== undefined && Array.isArray(values) ? ` ${String(values[Number(index)])}` : '';
      const required = /^required\b/.test(message!) ? `required (--${f.flag} <value>${f.kind === 'list' ? ', repeatable' : ''})` : message!;
      text = `--${f.flag}${item}: ${required}`;
    }
  }
  return text.replace(/\b(\w+): (true|false)\b/g, (whole, field: string, value: string) => {
    const f = flagOf.get(field);
    return f?.kind === 'boolean' ? (value === 'true' ? `--${f.flag}` : `--no-${f.flag}`) : whole;
  });
}
