/**
 * The JSON Schema for editors and the config reference are written from the one declaration
 * (`npm run config-schema`); a field added or changed without running it fails here.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { configJsonSchema, configReference } from '../../src/config/reference.js';
import { packageClientFields } from '../../src/plugin-host/package-client-fields.js';

const pluginFields = await packageClientFields();

const read = (path: string): string => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

describe('generated config documents', () => {
  it('svc.config.schema.json is fresh (run `npm run config-schema`)', () => {
    expect(read('svc.config.schema.json')).toBe(`${JSON.stringify(configJsonSchema(pluginFields), null, 2)}\n`);
  });

  it('docs/config-reference.md is fresh (run `npm run config-schema`)', () => {
    expect(read('docs/config-reference.md')).toBe(configReference(pluginFields));
  });

  it('describes each field with its type and default, client fields included', () => {
    const reference = configReference();
    expect(reference).toContain('| `port` | integer 0..65535 | `5000` |');
    expect(reference).toContain('| `clients[].refreshTokenReuseInterval` | integer 0..300 | `5` |');
    expect(reference).toContain('| `clients[].clientId` | string | required |');
    const schema = configJsonSchema() as { additionalProperties: unknown; properties: Record<string, { default?: unknown }> };
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.logLevel!.default).toBe('info');
  });

  it('lists the client fields the package\'s plugins declare, with the plugins that declare them (issue 32)', () => {
    expect(configReference(pluginFields)).toContain('| `clients[].allowedSubjectTokenAudiences` | string[] | `[]` | delegation, token-exchange |');
    const schema = configJsonSchema(pluginFields) as { properties: { clients: { items: { properties: Record<string, { type?: string }> } } } };
    expect(schema.properties.clients.items.properties.allowedSubjectTokenAudiences).toMatchObject({ type: 'array', default: [] });
    expect((configJsonSchema() as typeof schema).properties.clients.items.properties.allowedSubjectTokenAudiences).toBeUndefined();
  });
});
