#!/usr/bin/env node
// The installed package runs the compiled service (dist/, built by `npm pack`), which starts
// faster; a clone of the repository runs the TypeScript sources directly through jiti, the same
// loader that reads svc.config.ts and plugin folders, so there is no build step. The package
// ships no src/, so a clone (which has it) never runs a stale dist/.
import { existsSync } from 'node:fs';

const fromSources = existsSync(new URL('../src/cli/main.ts', import.meta.url));
// Only `.ts` (and `.js`) for our own sources: jiti tries every extension it knows on every parent
// folder before it maps an import of `./x.js` to `./x.ts` (NodeNext style, as src/ is written), and
// each miss costs a stat and an error; with nine extensions that was about half the CPU of a
// command. Plugin folders and svc.config.ts load through src/config/module-loader.ts, which keeps
// jiti's full list.
const { main } = fromSources
  ? await (await import('jiti')).createJiti(import.meta.url, { interopDefault: true, extensions: ['.ts', '.js'] }).import('../src/cli/main.ts')
  : await import('../dist/cli/main.js');
process.exitCode = await main(process.argv.slice(2));
