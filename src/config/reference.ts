/**
 * What `npm run config-schema` writes from the one declaration (`schema.ts`): the JSON Schema
 * editors read (`svc.config.schema.json`; for `.svcrc.json`, or `// @ts-check`-less editors) and
 * the config reference of the docs (`docs/config-reference.md`): each field with its type, its
 * default and its description. `test/config/reference.test.ts` fails when either file is stale.
 *
 * A client's fields include those the package's own plugins declare (`packageClientFields`, the
 * caller passes them): the generator cannot know a deployment's own plugins, whose fields an
 * editor marks unknown (the service accepts them once the plugin is loaded; `svc.config.ts` types
 * them by declaration merging, `PluginClientFields`).
 */
import * as z from 'zod';
import { clientFieldJsonSchema, type DescribedClientField } from './plugin-client-field-schemas.js';
import { userConfigSchema } from './schema.js';

type JsonSchema = {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  additionalProperties?: JsonSchema | boolean;
  required?: string[];
  default?: unknown;
  description?: string;
  minimum?: number;
  maximum?: number;
};

export function configJsonSchema(pluginFields: readonly DescribedClientField[] = []): Record<string, unknown> {
  const schema = z.toJSONSchema(userConfigSchema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown> & { properties: Record<string, JsonSchema> };
  const client = schema.properties.clients!.items!;
  for (const described of pluginFields) (client.properties ??= {})[described.field.name] = clientFieldJsonSchema(described) as JsonSchema;
  return { ...schema, title: 'svc-token-service config (svc.config.ts, .svcrc.json)' };
}

function typeName(s: JsonSchema): string {
  if (s.enum) return s.enum.map((v) => JSON.stringify(v)).join(' \\| ');
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (s.anyOf) return s.anyOf.map(typeName).join(' \\| ');
  if (s.type === 'array') return `${s.items ? typeName(s.items) : 'unknown'}[]`;
  if (s.type === 'integer') {
    const max = s.maximum === undefined || s.maximum >= Number.MAX_SAFE_INTEGER ? '' : `${s.maximum}`;
    return s.minimum === undefined ? 'integer' : `integer ${s.minimum}..${max}`;
  }
  if (s.type === 'object') return s.properties ? 'object' : 'map';
  return Array.isArray(s.type) ? s.type.join(' \\| ') : (s.type ?? 'any');
}

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function rows(properties: Record<string, JsonSchema>, required: readonly string[], prefix: string, out: string[]): void {
  for (const [name, s] of Object.entries(properties)) {
    const field = `${prefix}${name}`;
    const fallback = s.default === undefined ? (required.includes(name) ? 'required' : '') : `\`${JSON.stringify(s.default)}\``;
    out.push(`| \`${field}\` | ${cell(typeName(s))} | ${cell(fallback)} | ${cell(s.description ?? '')} |`);
    if (s.type === 'object' && s.properties) rows(s.properties, s.required ?? [], `${field}.`, out);
    if (s.type === 'array' && s.items?.properties) rows(s.items.properties, s.items.required ?? [], `${field}[].`, out);
  }
}

export function configReference(pluginFields: readonly DescribedClientField[] = []): string {
  const schema = configJsonSchema() as JsonSchema;
  const out = [
    '# Config reference',
    '',
    '<!-- Written by `npm run config-schema` from src/config/schema.ts and src/sdk/model.ts; do not edit by hand. -->',
    '',
    'Every field of `svc.config.ts` (or `.svcrc.json`), with its type, its default and what it does. Editors read the same',
    'declaration as JSON Schema from `svc.config.schema.json`. Plugins\' own options (`plugins.<name>`) are described in each',
    'plugin\'s README; the client fields the package\'s plugins declare are listed [after the service\'s](#client-fields-of-the-plugins).',
    '',
    '| field | type | default | description |',
    '| --- | --- | --- | --- |',
  ];
  rows(schema.properties ?? {}, schema.required ?? [], '', out);
  out.push(
    '',
    '## Client fields of the plugins',
    '',
    'Written on a client like the service\'s own, accepted when a plugin that declares them is loaded and checked by it',
    '(docs/guides/plugin-client-fields.md). A deployment\'s own plugin documents its fields in its README.',
    '',
    '| field | type | default | plugins | description |',
    '| --- | --- | --- | --- | --- |',
  );
  for (const { field, plugins } of pluginFields) {
    const s = (field.jsonSchema ?? {}) as JsonSchema;
    out.push(`| \`clients[].${field.name}\` | ${cell(typeName(s))} | \`${JSON.stringify(field.default)}\` | ${plugins.join(', ')} | ${cell(field.description)} |`);
  }
  return `${out.join('\n')}\n`;
}
