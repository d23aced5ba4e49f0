/**
 * A PostgreSQL of the store soak's own, with the server's default settings: `initdb` into a temp
 * folder, started on a free loopback port, removed at the end. The soak needs autovacuum (on by
 * default), as deleted rows free their space only once vacuumed; the shared server the tests use
 * may run with it off (a test server's choice, which makes any table that deletes grow).
 *
 * As root (this VM, CI), PostgreSQL refuses to run: the cluster then belongs to the `postgres`
 * user and its commands run through `runuser`.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { freePort } from './fixture.js';

export interface OwnPostgres {
  /** Superuser connection to its `postgres` database. */
  readonly url: string;
  /** `postgres --version`'s answer, for the report. */
  readonly version: string;
  stop(): void;
}

/** The folder holding `initdb` and `pg_ctl`: the newest Debian one, else the PATH's. */
function binaries(): string | undefined {
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian)) {
    const newest = readdirSync(debian).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a))[0];
    if (newest !== undefined && existsSync(join(debian, newest, 'bin', 'initdb'))) return join(debian, newest, 'bin');
  }
  const found = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' }).stdout.trim();
  return found === '' ? undefined : found.replace(/\/initdb$/, '');
}

/** Starts one, or says why it cannot. */
export async function startOwnPostgres(): Promise<OwnPostgres | { skipped: string }> {
  const bin = binaries();
  if (bin === undefined) return { skipped: 'no initdb on this machine (Debian: apt-get install postgresql)' };
  const asRoot = userInfo().uid === 0;
  const dir = mkdtempSync(join(tmpdir(), 'svc-soak-pg-'));
  const data = join(dir, 'data');
  const run = (command: string, args: string[]): void => {
    const [file, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', join(bin, command), ...args]] : [join(bin, command), args];
    execFileSync(file, argv, { stdio: 'pipe', timeout: 120_000 });
  };
  try {
    if (asRoot) {
      const { uid, gid } = JSON.parse(execFileSync('sh', ['-c', 'printf \'{"uid":%s,"gid":%s}\' "$(id -u postgres)" "$(id -g postgres)"'], { encoding: 'utf8' })) as { uid: number; gid: number };
      chownSync(dir, uid, gid);
    }
    run('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync']);
    const port = await freePort();
    run('pg_ctl', ['-D', data, '-l', join(dir, 'server.log'), '-w', '-o', `-p ${port} -c listen_addresses=127.0.0.1 -k ${dir}`, 'start']);
    const version = execFileSync(join(bin, 'postgres'), ['--version'], { encoding: 'utf8' }).trim();
    return {
      url: `postgres://postgres@127.0.0.1:${port}/postgres`,
      version,
      stop() {
        try {
          run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      },
    };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
    return { skipped: `could not start a PostgreSQL of its own: ${stderr || (error as Error).message}` };
  }
}
