#!/usr/bin/env node
// Runs the TypeScript sources directly through jiti, the same loader that reads svc.config.ts
// and plugin folders, so there is no build step.
import { createJiti } from 'jiti';

const jiti = createJiti(import.meta.url, { interopDefault: true });
const { main } = await jiti.import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
