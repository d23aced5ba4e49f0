/**
 * The README's shell examples run verbatim by the tests: a section's code blocks, the sample
 * config as a test server takes it, and the blocks run in bash against that server.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { importDefault } from '../../src/config/module-loader.js';
import type { UserConfig } from '../../src/config/schema.js';
import { compiledSvc } from './compiled-service.js';
import { repoRoot } from './server.js';

/** The README from `heading` up to `until` (or its end). */
export function readmeSection(heading: string, until?: string): string {
  return docSection('README.md', heading, until);
}

/** A document of the repository (`docs/guides/mcp.md`) from `heading` up to `until` (or its end). */
export function docSection(path: string, heading: string, until?: string): string {
  const text = readFileSync(join(repoRoot, path), 'utf8');
  const start = text.indexOf(heading);
  if (start < 0) throw new Error(`${path} has no "${heading}"`);
  const end = until === undefined ? -1 : text.indexOf(until, start);
  return text.slice(start, end < 0 ? undefined : end);
}

/** The `sh` code blocks of a README section, in order. */
export function shellBlocks(section: string): string[] {
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

/** svc.config.ts as the README's examples use it, without its port and store (a test server picks its own). */
export async function sampleConfig(): Promise<UserConfig> {
  const { port: _port, store: _store, ...rest } = (await importDefault(join(repoRoot, 'svc.config.ts'))) as UserConfig;
  return rest;
}

/** The line a doc's shell block starts with so that one variable, SVC, holds the service's base URL. */
export const baseUrlLine = 'SVC=${SVC:-http://localhost:5000}';

/** What a doc's `npx svc` runs in the tests: this clone's CLI, compiled (compiled-service.ts). */
export const npxSvc = `${JSON.stringify(process.execPath)} ${JSON.stringify(compiledSvc)}`;

/**
 * Runs a doc's script in bash against `url`, given as `SVC` in the environment (the blocks take
 * the base URL from it, so they run as written), `npx svc` as `npxSvc`. A script that names
 * http://localhost:5000 anywhere but in the SVC default is refused: it would not follow a
 * reader whose service listens elsewhere (macOS's AirPlay receiver holds port 5000).
 */
export async function runReadmeScript(script: string, { url, cwd, env = {} }: { url: string; cwd: string; env?: Record<string, string> }): Promise<string> {
  if (script.replaceAll(baseUrlLine, '').includes('http://localhost:5000')) {
    throw new Error(`this script names http://localhost:5000; start it with ${baseUrlLine} and use $SVC:\n${script}`);
  }
  const text = script.replaceAll('npx svc', npxSvc);
  const { stdout } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', text], { cwd, timeout: 60_000, env: { ...process.env, ...env, SVC: url } });
  return stdout;
}
