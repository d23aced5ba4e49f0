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

/** Runs a README script in bash against `url` (for http://localhost:5000), `npx svc` as this clone's CLI. */
export async function runReadmeScript(script: string, { url, cwd }: { url: string; cwd: string }): Promise<string> {
  const svc = `${JSON.stringify(process.execPath)} ${JSON.stringify(join(repoRoot, 'bin/svc.mjs'))}`;
  const text = script.replaceAll('http://localhost:5000', url).replaceAll('npx svc', svc);
  const { stdout } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', text], { cwd, timeout: 60_000 });
  return stdout;
}
