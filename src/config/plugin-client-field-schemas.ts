/**
 * The client fields plugins declare, as zod declarations beside the service's own, for what
 * describes or gates a client's fields by its declaration: the admin API's bodies and document,
 * the editor schema and the config reference. Each takes any value and shows the declaration's
 * JSON Schema and description: the plugin's `check` judges the value, wherever the client is
 * written (`src/plugin-host/check-client-fields.ts`), so it is judged in one place.
 */
import type { ClientField } from '../sdk/client-fields.js';
import { z } from './fields.js';

/** A client field for tools and people: its (first) declaration and every plugin that declares it. */
export interface DescribedClientField {
  readonly field: ClientField<unknown>;
  readonly plugins: readonly string[];
}

const byWhom = (plugins: readonly string[]): string =>
  `Declared by the ${plugins.map((p) => `"${p}"`).join(' and ')} plugin${plugins.length > 1 ? 's' : ''}.`;

/** A field as JSON Schema: the declaration's, with its default and description (naming its plugins). */
export function clientFieldJsonSchema({ field, plugins }: DescribedClientField): Record<string, unknown> {
  return { default: field.default, ...field.jsonSchema, description: `${field.description} ${byWhom(plugins)}` };
}

/** One optional member per field, named after it. */
export function clientFieldShape(fields: readonly DescribedClientField[]): Record<string, z.ZodType> {
  return Object.fromEntries(fields.map((described) => [described.field.name, z.unknown().optional().meta(clientFieldJsonSchema(described))]));
}
