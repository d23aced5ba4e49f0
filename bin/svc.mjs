#!/usr/bin/env node
// The installed package runs the compiled service (dist/, built by `npm pack`), which starts
// faster; a clone of the repository runs the TypeScript sources directly through jiti, the same
// loader that reads svc.config.ts and plugin folders, so there is no build step. The package
// ships no src/, so a clone (which has it) never runs a stale dist/.
import { existsSync } from 'node:fs';

const fromSources = existsSync(new URL('../src/cli/main.ts', import.meta.url));
const { main } = fromSources
  ? await (await import('jiti')).createJiti(import.meta.url, { interopDefault: true }).import('../src/cli/main.ts')
  : await import('../dist/cli/main.js');
process.exitCode = await main(process.argv.slice(2));
