#!/usr/bin/env node
// `npm run bench`. The benchmark is TypeScript, loaded through jiti (the loader the service
// itself uses), so it runs on Node 20 without a build step. Settings: see options.ts.
import { createJiti } from 'jiti';

const jiti = createJiti(import.meta.url, { interopDefault: true });
const { runBenchmark } = await jiti.import('./main.ts');
process.exitCode = await runBenchmark();
