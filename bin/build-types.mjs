#!/usr/bin/env node
// Builds the published declarations (types/) of svc/sdk, svc/sdk/testing and svc/config, for
// plugins kept outside this repository. Run by `npm ci` (prepare). Skipped when TypeScript is not
// installed: a production install (`npm ci --omit=dev`) runs the service and needs no types.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
let tsc;
try {
  tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
} catch {
  console.log('build-types: TypeScript is not installed; skipping the SDK declarations');
  process.exit(0);
}
const result = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.types.json'], { cwd: root, stdio: 'inherit' });
process.exit(result.status ?? 1);
