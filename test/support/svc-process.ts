/**
 * `svc start --config <file>` as a child process, run the way a user runs it (NODE_ENV=production),
 * with its output captured for assertions. `svc` is the compiled service (compiled-service.ts:
 * the same sources, without jiti's loading cost per process); `binSvc`, the clone's own
 * bin/svc.mjs, for the tests of the binary.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { compiledSvc } from './compiled-service.js';
import { repoRoot } from './server.js';

/** The binary a clone runs (`npx svc`): the TypeScript sources through jiti. */
export const binSvc = join(repoRoot, 'bin/svc.mjs');

export interface SvcProcess {
  readonly proc: ChildProcess;
  /** Every JSON log line so far. */
  logs(): Array<Record<string, unknown>>;
  /** Everything written to stdout and stderr so far. */
  output(): string;
  /** When and how the process ended (`at`: epoch ms). */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
}

export function runSvc(configFile: string, options: { args?: string[]; env?: NodeJS.ProcessEnv } = {}): SvcProcess {
  return spawnSvc(process.execPath, [compiledSvc, 'start', '--config', configFile, ...(options.args ?? [])], { cwd: repoRoot, ...(options.env ? { env: options.env } : {}) });
}

/** Any command that runs the service (`npx svc start ...` in an installed package), watched like `runSvc`. */
export function spawnSvc(command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }): SvcProcess {
  // The caller's environment, without what would override the test's own config (a shell or CI
  // runner may export HOST); the test's `env` may set them again.
  const inherited: NodeJS.ProcessEnv = { ...process.env };
  delete inherited.SVC_CONFIG;
  delete inherited.HOST;
  const env: NodeJS.ProcessEnv = { ...inherited, NODE_ENV: 'production', ...options.env };
  const proc = spawn(command, args, { cwd: options.cwd, env });
  let text = '';
  proc.stdout!.on('data', (chunk: Buffer) => (text += chunk.toString()));
  proc.stderr!.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    proc.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() })),
  );
  return {
    proc,
    exited,
    output: () => text,
    logs: () =>
      text
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

/**
 * How long a child process may take before a test gives up on it: a guard against a hang, not a
 * measure of speed. Loading the sources costs a process seconds of CPU, which a machine busy with
 * other work (load 4 and more on 2 cores) stretches many times over.
 */
export const processLimitMs = 120_000;

/** Waits until `ready()` holds; fails early, with the output, if the process exits first. */
export async function until(what: string, svc: SvcProcess, ready: () => boolean, timeoutMs = processLimitMs): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!ready()) {
    if (svc.proc.exitCode !== null) throw new Error(`svc exited (${svc.proc.exitCode}) while waiting for ${what}:\n${svc.output()}`);
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}:\n${svc.output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** One `svc <args>` command, run to its end (at most `processLimitMs`), with SVC_CONFIG cleared. */
export function runCli(...args: string[]): Promise<CliRun> {
  return runCliWith({}, ...args);
}

/** `runCli` with text on standard input, extra environment variables, or another script than the compiled `svc` (`binSvc`). */
export function runCliWith(options: { input?: string; env?: NodeJS.ProcessEnv; script?: string }, ...args: string[]): Promise<CliRun> {
  const env: NodeJS.ProcessEnv = { ...process.env, ...options.env };
  delete env.SVC_CONFIG;
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [options.script ?? compiledSvc, ...args], { cwd: repoRoot, env, timeout: processLimitMs }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
    child.stdin!.end(options.input ?? '');
  });
}
