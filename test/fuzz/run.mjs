#!/usr/bin/env node
// `npm run fuzz`. TypeScript loaded through jiti, as the benchmark and the service do.
// Settings: FUZZ_SECONDS (default 60), FUZZ_SEED, FUZZ_PATH. See docs/guides/working-on-the-code.md, "Fuzzing".
import { createJiti } from 'jiti';

const jiti = createJiti(import.meta.url, { interopDefault: true });
const { runFuzz } = await jiti.import('./main.ts');
process.exitCode = await runFuzz();
