#!/usr/bin/env node
// Writes svc.config.schema.json and docs/config-reference.md from the config's one declaration
// (src/config/schema.ts), and the client fields the package's own plugins declare.
// `npm run config-schema`; test/config/reference.test.ts checks they are fresh.
import { writeFileSync } from 'node:fs';
import { createJiti } from 'jiti';

const root = new URL('../', import.meta.url);
const jiti = createJiti(import.meta.url);
const { configJsonSchema, configReference } = await jiti.import(new URL('src/config/reference.ts', root).pathname);
const { packageClientFields } = await jiti.import(new URL('src/plugin-host/package-client-fields.ts', root).pathname);
const pluginFields = await packageClientFields();
writeFileSync(new URL('svc.config.schema.json', root), `${JSON.stringify(configJsonSchema(pluginFields), null, 2)}\n`);
writeFileSync(new URL('docs/config-reference.md', root), configReference(pluginFields));
console.log('wrote svc.config.schema.json and docs/config-reference.md');
