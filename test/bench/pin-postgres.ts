/**
 * Keeps a local PostgreSQL off the measured server's CPU for the run. The benchmark pins each
 * server to one CPU and the load generator to the other; PostgreSQL's processes, unpinned, ran
 * on the server's CPU too, between its requests. Measured in alternation, two runs each way,
 * the PostgreSQL refresh row (ES256 ID token) cost 1.52× and 1.53× its store floor plus
 * signatures with PostgreSQL free, 1.37× and 1.34× with it on the load generator's CPU; the
 * reference-token row did not move beyond its noise. In production the database has a host of
 * its own, so the benchmark moves it next to the load generator, as one more client of the server.
 *
 * Linux only (/proc, `taskset`), and only for a server on this machine; its CPUs are given back
 * at the end. New backends inherit the postmaster's CPUs when it forks them.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';

export interface PinnedPostgres {
  /** For the report, e.g. "PostgreSQL's processes (postmaster 2214) pinned to CPU 1 …". */
  readonly note: string;
  /** Gives its processes back the CPUs they had. */
  restore(): void;
}

const parentOf = (pid: number): number | undefined => {
  try {
    // "pid (comm) state ppid …"; comm may hold spaces, so read after its closing parenthesis.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
};

const childrenOf = (pid: number): number[] =>
  readdirSync('/proc').filter((name) => /^\d+$/.test(name)).map(Number).filter((child) => parentOf(child) === pid);

const setCpus = (pid: number, cpuList: string): void => {
  try {
    execFileSync('taskset', ['-a', '-p', '-c', cpuList, String(pid)], { stdio: 'ignore' });
  } catch {
    // The process ended between the listing and the call: nothing to move.
  }
};

/** The CPUs of `pid` as a list taskset takes back ("0-1"); undefined when it cannot be read. */
function cpusOf(pid: number): string | undefined {
  try {
    return /list: (\S+)/.exec(execFileSync('taskset', ['-c', '-p', String(pid)], { encoding: 'utf8' }))?.[1];
  } catch {
    return undefined;
  }
}

/**
 * Pins the PostgreSQL whose backend has `backendPid` (from `select pg_backend_pid()`) to `cpu`;
 * a reason instead when it is not on this machine or cannot be moved.
 */
export function pinPostgres(backendPid: number, cpu: number): PinnedPostgres | { readonly skipped: string } {
  const postmaster = parentOf(backendPid);
  if (postmaster === undefined || postmaster <= 1) return { skipped: 'PostgreSQL runs on another machine or in a namespace of its own' };
  const original = cpusOf(postmaster);
  if (original === undefined) return { skipped: `taskset cannot read the CPUs of PostgreSQL's postmaster (pid ${postmaster})` };
  const all = (): number[] => [postmaster, ...childrenOf(postmaster)];
  let restored = false;
  for (const pid of all()) setCpus(pid, String(cpu));
  if (cpusOf(postmaster) !== String(cpu)) {
    // Some backends may have moved where the postmaster did not: give them their CPUs back.
    for (const pid of all()) setCpus(pid, original);
    return { skipped: `PostgreSQL's postmaster (pid ${postmaster}) could not be moved (not ours to move)` };
  }
  return {
    note: `PostgreSQL's processes (postmaster pid ${postmaster}) pinned to CPU ${cpu}, the load generator's, while the pinned servers ran (test/bench/pin-postgres.ts), and given back CPUs ${original} before the unpinned cluster rows.`,
    // Once is enough; the run calls it before the cluster rows and again on its way out.
    restore: () => {
      if (restored) return;
      restored = true;
      for (const pid of all()) setCpus(pid, original);
    },
  };
}
