#!/usr/bin/env node
// Writes docs/cli-reference.md from the commands' own help text (src/cli/commands.ts).
// `npm run cli-reference`; test/docs/cli-reference.test.ts checks it is fresh.
import { writeFileSync } from 'node:fs';
import { createJiti } from 'jiti';

const root = new URL('../', import.meta.url);
const jiti = createJiti(import.meta.url);
const { cliReference } = await jiti.import(new URL('src/cli/reference.ts', root).pathname);
writeFileSync(new URL('docs/cli-reference.md', root), cliReference());
console.log('wrote docs/cli-reference.md');
