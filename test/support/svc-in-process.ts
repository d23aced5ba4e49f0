/**
 * `svc <args>` through the CLI's own entry (`main`, what bin/svc.mjs runs) in the test's process,
 * with what it writes captured: for tests of what a command prints and returns, where a process
 * of its own would only add seconds of loading the sources. Tests of process behaviour (exit
 * status, signals, standard input, no stack trace on stderr) spawn the binary (svc-process.ts).
 */
import { vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { CliRun } from './svc-process.js';

export async function runMain(...args: string[]): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((stdout += String(chunk)), true));
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((stderr += String(chunk)), true));
  try {
    const code = await main(args);
    return { code, stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}
