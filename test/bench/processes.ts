/**
 * The processes under test: the service started as a user starts it (`node bin/svc.mjs start
 * --config <file>`, NODE_ENV=production), node-oidc-provider and the bare Koa floor, each
 * optionally pinned to one CPU with `taskset`.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from './options.js';

export const serverCpu = 0;
export const loadCpu = 1;

/** `taskset` exists and there are two CPUs to split between server and load generator. */
export function canPin(): boolean {
  if (cpus().length < 2) return false;
  try {
    execFileSync('taskset', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Moves every thread of this process (the load generator) onto `cpu`. */
export function pinSelf(cpu: number): void {
  execFileSync('taskset', ['-a', '-p', '-c', String(cpu), String(process.pid)], { stdio: 'ignore' });
  pinning = true;
}

export interface ServerProcess {
  readonly pid: number;
  readonly url: string;
  /** Resident set size in KiB, from /proc/<pid>/status (VmRSS); undefined off Linux. */
  rssKiB(): number | undefined;
  /** The last 64 KiB of stdout and stderr. */
  output(): string;
  /** SIGTERM, then SIGKILL after 20 s; resolves with the exit code. */
  stop(): Promise<number | null>;
}

interface SpawnOptions {
  /** Pin the process (and its threads and children) to this CPU. */
  cpu?: number | undefined;
  nodeArgs?: readonly string[];
}

let pinning = false;

function launch(args: readonly string[], { cpu, nodeArgs = [] }: SpawnOptions): ChildProcess {
  const command = [process.execPath, ...nodeArgs, ...args];
  // Children inherit this (pinned) process's affinity: an unpinned server gets every CPU back.
  const cpuList = cpu !== undefined ? String(cpu) : pinning ? `0-${cpus().length - 1}` : undefined;
  const [file, ...rest] = cpuList === undefined ? command : ['taskset', '-c', cpuList, ...command];
  // NODE_OPTIONS from the caller (a debugger, say) must not leak into the measured process.
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'production' };
  delete env.NODE_OPTIONS;
  delete env.SVC_CONFIG;
  return spawn(file!, rest, { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
}

function wrap(child: ChildProcess, url: string, text: () => string): ServerProcess {
  const exited = new Promise<number | null>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });
  return {
    pid: child.pid!,
    url,
    output: text,
    rssKiB() {
      try {
        const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
        return match ? Number(match[1]) : undefined;
      } catch {
        return undefined;
      }
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

function capture(child: ChildProcess): () => string {
  let text = '';
  const add = (chunk: Buffer): void => {
    text += chunk.toString();
    if (text.length > 65_536) text = text.slice(-65_536);
  };
  child.stdout!.on('data', add);
  child.stderr!.on('data', add);
  return () => text;
}

async function waitUntil(child: ChildProcess, text: () => string, what: string, ready: () => Promise<boolean> | boolean): Promise<void> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`${what} exited (${child.exitCode ?? child.signalCode}) before it was ready:\n${text()}`);
    }
    if (await ready()) return;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${what} was not ready after 90 s:\n${text()}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function answers(url: string): Promise<boolean> {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(2000) })).ok;
  } catch {
    return false;
  }
}

export interface ServiceOptions extends SpawnOptions {
  configFile: string;
  port: number;
  /** Cluster mode: wait for this many "svc listening" lines (needs logLevel info). */
  workers?: number;
}

export async function startService(options: ServiceOptions): Promise<ServerProcess> {
  const child = launch([join(repoRoot, 'bin/svc.mjs'), 'start', '--config', options.configFile], options);
  const text = capture(child);
  const url = `http://127.0.0.1:${options.port}`;
  const workers = options.workers ?? 1;
  await waitUntil(child, text, 'the service', async () => {
    if (workers > 1 && (text().match(/"msg":"svc listening"/g) ?? []).length < workers) return false;
    return answers(`${url}/.well-known/openid-configuration/jwks`);
  });
  return wrap(child, url, text);
}

/** Starts a script of this folder that prints "listening <url>" when ready. */
async function startListening(script: string, args: readonly string[], what: string, options: SpawnOptions & { port: number }): Promise<ServerProcess> {
  const child = launch([join(repoRoot, 'test/bench', script), ...args], options);
  const text = capture(child);
  await waitUntil(child, text, what, () => text().includes('listening '));
  return wrap(child, `http://127.0.0.1:${options.port}`, text);
}

/** node-oidc-provider v9 configured for the same scenarios (test/bench/oidc-provider.mjs). */
export function startOidcProvider(options: SpawnOptions & { settingsFile: string; port: number }): Promise<ServerProcess> {
  return startListening('oidc-provider.mjs', [options.settingsFile], 'node-oidc-provider', options);
}

export function startBareKoa(options: SpawnOptions & { port: number }): Promise<ServerProcess> {
  return startListening('bare-koa.mjs', [String(options.port)], 'the bare Koa server', options);
}

/** Issue 21's signing-pool question (test/bench/signing-pool.mjs): the floor plus one RS256 signature, signed inline, in `count` cluster workers or in a pool of `count` threads. */
export function startSigningServer(options: SpawnOptions & { port: number; mode: 'inline' | 'cluster' | 'pool'; count: number }): Promise<ServerProcess> {
  return startListening('signing-pool.mjs', [String(options.port), options.mode, String(options.count)], `the signing server (${options.mode})`, options);
}

/** The PostgreSQL ceiling (test/bench/bare-koa-pg.mjs): bare Koa plus the service's reference-token insert. */
export function startBareKoaPostgres(options: SpawnOptions & { port: number; url: string }): Promise<ServerProcess> {
  return startListening('bare-koa-pg.mjs', [String(options.port), options.url], 'the bare Koa + PostgreSQL server', options);
}

/**
 * The store floor (test/bench/bare-koa-store.mjs): bare Koa plus a durable row's store calls, on
 * the service's own store at `store` (`sqlite:<path>` or a PostgreSQL URL).
 */
export function startStoreFloor(options: SpawnOptions & { port: number; store: string }): Promise<ServerProcess> {
  return startListening('bare-koa-store.mjs', [String(options.port), options.store], 'the bare Koa + store server', options);
}

export interface PostgresLoopResult {
  /** Statements per second, this process's CPU µs per statement, p99 latency in ms. */
  readonly insert: { readonly perSecond: number; readonly cpuMicros: number; readonly p99: number };
  readonly select: { readonly perSecond: number; readonly cpuMicros: number; readonly p99: number };
}

/** The PostgreSQL ceiling without HTTP (test/bench/postgres-loop.mjs), pinned like a server. */
export async function runPostgresLoop(options: SpawnOptions & { url: string; seconds: number; inFlight: number }): Promise<PostgresLoopResult> {
  const child = launch([join(repoRoot, 'test/bench/postgres-loop.mjs'), options.url, String(options.seconds), String(options.inFlight)], options);
  const text = capture(child);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  const line = text().trim().split('\n').at(-1) ?? '';
  if (code !== 0 || !line.startsWith('{')) throw new Error(`the PostgreSQL loop failed (exit ${code}):\n${text().slice(-2000)}`);
  return JSON.parse(line) as PostgresLoopResult;
}
