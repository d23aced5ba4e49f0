#!/usr/bin/env node
// Builds the published declarations (types/) of svc/sdk, svc/sdk/testing and svc/config, for
// plugins kept outside this repository. Run by `npm ci` (prepare). Skipped when TypeScript is not
// installed: a production install (`npm ci --omit=dev`) runs the service and needs no types.
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
let tsc;
try {
  tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
} catch {
  console.log('build-types: TypeScript is not installed; skipping the SDK declarations');
  process.exit(0);
}
// Incremental: tsc's record of the last build (in .cache/, which is never shipped) lets a build
// with nothing changed finish in a third of the CPU (the external-plugin test builds again after
// `npm ci` did). tsc does not check that its outputs are still there, so the record goes when an
// entry's declaration is missing (types/ deleted).
const record = join(root, '.cache/types.tsbuildinfo');
const entries = ['sdk/index.d.ts', 'testing/index.d.ts', 'config/define-config.d.ts'];
if (!entries.every((entry) => existsSync(join(root, 'types', entry)))) rmSync(record, { force: true });
const result = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.types.json', '--incremental', '--tsBuildInfoFile', record], { cwd: root, stdio: 'inherit' });
process.exit(result.status ?? 1);
