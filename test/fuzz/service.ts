/**
 * The service under fuzz: `node bin/svc.mjs start` as a child process, the way a user runs it.
 * Its output is scanned for secrets as it arrives (a window across chunk borders), not kept.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from './fixture.js';
import { redact } from './redact.js';

export interface FuzzedService {
  readonly proc: ChildProcess;
  /** Set once the process has exited. */
  exit(): { code: number | null; signal: NodeJS.Signals | null } | undefined;
  /** Secrets seen in the output, and log lines that say a handler threw. */
  findings(): string[];
  /** The last lines of output, for a failure report. */
  tail(): string;
  stop(): Promise<void>;
}

export async function startService(configFile: string, secrets: readonly string[]): Promise<FuzzedService> {
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'production' };
  delete env.SVC_CONFIG;
  const proc = spawn(process.execPath, [join(repoRoot, 'bin/svc.mjs'), 'start', '--config', configFile], { cwd: repoRoot, env });
  let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  proc.once('exit', (code, signal) => (exited = { code, signal }));

  // By what went wrong: the same error again (another time, request id) is counted, not repeated.
  const findings = new Map<string, { text: string; times: number }>();
  const add = (key: string, text: string): void => {
    const seen = findings.get(key);
    if (seen) seen.times++;
    else findings.set(key, { text, times: 1 });
  };
  let partial = '';
  let tail = '';
  let listening = false;
  const line = (text: string): void => {
    for (const secret of secrets) if (text.includes(secret)) add(`secret ${secret.length}`, `a secret (${secret.length} characters) in the log: ${redact(text, secrets).slice(0, 300)}`);
    if (text.includes('svc listening')) listening = true;
    // A 500 shows in the answers; anything else at error level or above (a handler that threw,
    // Node's crash output on stderr) is a finding of its own.
    if (!text.startsWith('{')) {
      if (/Error|at .+:\d+:\d+/.test(text)) add(text, `non-JSON error output: ${redact(text, secrets).slice(0, 300)}`);
      return;
    }
    const level = /"level":(\d+)/.exec(text)?.[1];
    if (Number(level) >= 50 && !text.includes('"msg":"request failed"')) {
      const key = text.replace(/"(?:time|pid|reqId|requestId|hostname|path)":(?:"[^"]*"|\d+),?/g, '');
      // The stack, which names the cause, is what the report needs: it goes after the message.
      const stack = /"stack":"((?:[^"\\]|\\.)*)"/.exec(text)?.[1]?.replace(/\\n/g, '\n') ?? '';
      add(key, `an error-level log line: ${redact(text.replace(/"stack":"(?:[^"\\]|\\.)*",?/, ''), secrets).slice(0, 400)}${stack ? `\n${redact(stack, secrets).split('\n').slice(0, 8).join('\n')}` : ''}`);
    }
  };
  const scan = (chunk: Buffer): void => {
    const lines = (partial + chunk.toString('utf8')).split('\n');
    partial = lines.pop() ?? '';
    // A line longer than this is scanned in pieces; a secret across a cut is a miss worth the bound.
    if (partial.length > 1_000_000) lines.push(partial), (partial = '');
    lines.forEach(line);
    tail = (tail + chunk.toString('utf8')).slice(-4000);
  };
  proc.stdout!.on('data', scan);
  proc.stderr!.on('data', scan);

  const deadline = Date.now() + 30_000;
  while (!listening) {
    if (exited) throw new Error(`svc exited (${exited.code ?? exited.signal}) before listening:\n${tail}`);
    if (Date.now() > deadline) throw new Error(`svc did not listen within 30 s:\n${tail}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    proc,
    exit: () => exited,
    findings() {
      if (partial) line(partial);
      partial = '';
      return [...findings.values()].map((f) => (f.times === 1 ? f.text : `${f.text}\n(${f.times} times)`));
    },
    tail: () => tail,
    async stop() {
      if (exited) return;
      const done = new Promise((r) => proc.once('exit', r));
      proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
      await done;
      clearTimeout(timer);
    },
  };
}
