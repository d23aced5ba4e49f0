import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { cpus } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { canPin } from './processes.js';
import { pinPostgres } from './pin-postgres.js';

// A stand-in for PostgreSQL: a "postmaster" (a shell) with two "backends" (sleeps) it forked.
const script = 'sleep 60 & sleep 60 & echo started; wait';
const cpusOf = (pid: number): string => /list: (\S+)/.exec(execFileSync('taskset', ['-c', '-p', String(pid)], { encoding: 'utf8' }))![1]!;
const childPids = (pid: number): number[] =>
  execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' }).trim().split('\n').map(Number);

let postmaster: ChildProcess | undefined;
afterEach(() => {
  if (postmaster?.pid) {
    for (const pid of childPids(postmaster.pid)) process.kill(pid);
    postmaster.kill();
  }
  postmaster = undefined;
});

async function startPostmaster(): Promise<number> {
  postmaster = spawn('sh', ['-c', script], { stdio: ['ignore', 'pipe', 'ignore'] });
  await new Promise((resolve) => postmaster!.stdout!.once('data', resolve));
  return postmaster.pid!;
}

describe('PostgreSQL kept off the measured server\'s CPU', () => {
  const skip = canPin() ? false : `needs taskset and two CPUs (${cpus().length} here)`;
  if (skip) console.warn(`pin-postgres: skipped, ${skip}`);

  it.skipIf(skip)('moves the postmaster and every backend to the load CPU, and gives their CPUs back once', async () => {
    const pid = await startPostmaster();
    const original = cpusOf(pid);
    const [backend] = childPids(pid);
    const pinned = pinPostgres(backend!, 1);
    if ('skipped' in pinned) throw new Error(pinned.skipped);
    expect(pinned.note).toContain(`postmaster pid ${pid}`);
    for (const p of [pid, ...childPids(pid)]) expect(cpusOf(p)).toBe('1');
    pinned.restore();
    for (const p of [pid, ...childPids(pid)]) expect(cpusOf(p)).toBe(original);
  });

  it('says why when the backend is not on this machine', () => {
    expect(pinPostgres(2 ** 22 + 12345, 1)).toEqual({ skipped: expect.stringContaining('another machine') });
  });
});
