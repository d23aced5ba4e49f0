#!/usr/bin/env node
// Writes docs/admin-api.openapi.json, the admin API's OpenAPI 3.1 document, from the operations'
// own declarations (src/admin/), client bodies with the fields the package's own plugins declare.
// `npm run admin-openapi`; test/admin/document.test.ts checks it is fresh.
import { readFileSync, writeFileSync } from 'node:fs';
import { createJiti } from 'jiti';

const root = new URL('../', import.meta.url);
const jiti = createJiti(import.meta.url);
const { adminApiDocument } = await jiti.import(new URL('src/admin/document.ts', root).pathname);
const { packageClientFields } = await jiti.import(new URL('src/plugin-host/package-client-fields.ts', root).pathname);
const { version } = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
writeFileSync(new URL('docs/admin-api.openapi.json', root), `${JSON.stringify(adminApiDocument(version, await packageClientFields()), null, 2)}\n`);
console.log('wrote docs/admin-api.openapi.json');
