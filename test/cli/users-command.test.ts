/**
 * `svc users` (issue 34) against a SQLite file, as the server reads it: commands without a
 * password run through the CLI's entry (`main`) in process; the ones that read a password from
 * standard input run as a child process, the way an operator pipes one.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import { hashPassword, verifyPassword } from '../../src/oauth/password-hash.js';
import { openSqlite } from '../../src/store/sql/sqlite.js';
import type { StoredUser } from '../../src/store/user-records.js';
import { runCliWith } from '../support/svc-process.js';

let dir: string;
let configFile: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-users-cli-'));
  configFile = join(dir, 'svc.config.json');
  writeFileSync(configFile, JSON.stringify({
    store: 'sqlite:./data/svc.db',
    passwordRules: { minLength: 10, refused: ['password123'] },
    users: [{ subjectId: 'cfg-carol', username: 'Carol', password: await hashPassword('carol password', { ln: 2, r: 8, p: 1 }) }],
  }));
  writeFileSync(join(dir, 'memory.json'), JSON.stringify({ store: 'memory' }));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const svc = (...args: string[]) => svcWith(configFile, ...args);

async function svcWith(config: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((stdout += String(chunk)), true));
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((stderr += String(chunk)), true));
  try {
    return { code: await main([...args, '--config', config]), stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}

const piped = (input: string, ...args: string[]) => runCliWith({ input }, ...args, '--config', configFile);

async function stored(username: string): Promise<StoredUser | undefined> {
  const store = openSqlite(join(dir, 'data', 'svc.db'));
  try {
    return await store.users.getByUsername(username);
  } finally {
    await store.close();
  }
}

describe('svc users', () => {
  it('add reads the password from standard input and stores only its scrypt hash', async () => {
    const run = await piped('correct horse battery\n', 'users', 'add', 'alice', '--email', 'alice@example.com', '--email-verified', 'true', '--claim', 'name=Alice Smith', '--claim', 'age=42');
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const user = (await stored('alice'))!;
    expect(run.stdout).toBe(`user "alice" added (subject ${user.subjectId}).\n`);
    expect(user).toMatchObject({ username: 'alice', email: 'alice@example.com', emailVerified: true, claims: { name: 'Alice Smith', age: 42 }, disabled: false });
    expect(user.subjectId).toMatch(/^[\w-]{22}$/);
    expect(user.passwordHash).toMatch(/^\$scrypt\$ln=15,r=8,p=1\$/);
    expect(await verifyPassword('correct horse battery', user.passwordHash!)).toBe(true);
  });

  it('never takes a password from the command line', async () => {
    const run = await svc('users', 'add', 'mallory', 'hunter2hunter2');
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('svc: svc users add takes <username>: a password is never taken from the command line (the shell history would keep it); type it at the prompt, pipe it on standard input, or use --generate-password.\n');
    expect(await stored('mallory')).toBeUndefined();
  });

  it('--generate-password prints a new password once, and --json says the same as JSON', async () => {
    const run = await svc('users', 'add', 'bob', '--generate-password');
    expect(run.code).toBe(0);
    const [, password] = /^password: ([\w-]{20})\n$/.exec(run.stdout)!;
    expect(run.stderr).toBe('svc: the password is shown this once; only its scrypt hash is stored.\n');
    expect(await verifyPassword(password!, (await stored('bob'))!.passwordHash!)).toBe(true);

    const json = await svc('users', 'set-password', 'BOB', '--generate-password', '--json');
    const body = JSON.parse(json.stdout) as { subjectId: string; username: string; password: string };
    expect(body).toEqual({ subjectId: (await stored('bob'))!.subjectId, username: 'bob', password: expect.stringMatching(/^[\w-]{20}$/) });
    expect(await verifyPassword(body.password, (await stored('bob'))!.passwordHash!)).toBe(true);
    expect(await verifyPassword(password!, (await stored('bob'))!.passwordHash!)).toBe(false);
  });

  it('refuses a password the rules refuse, a config user\'s name, and a name in another case', async () => {
    expect(await piped('password123', 'users', 'set-password', 'alice')).toMatchObject({
      code: 1, stderr: 'svc: the password is on the list of refused passwords (too common); choose another (passwordRules in the config).\n',
    });
    expect(await piped('short', 'users', 'add', 'dave')).toMatchObject({ code: 1, stderr: 'svc: the password is too short: at least 10 characters (passwordRules in the config).\n' });
    expect(await svc('users', 'add', 'carol', '--no-password')).toMatchObject({
      code: 1, stderr: 'svc: the config file already has a user "Carol": a username two places define stops start-up. Remove it there first.\n',
    });
    expect(await svc('users', 'add', 'ALICE', '--no-password')).toMatchObject({
      code: 1, stderr: 'svc: a user "ALICE" is already in the database (usernames are compared without regard to case).\n',
    });
    expect(await stored('dave')).toBeUndefined();
  });

  it('lists and shows users, never a hash', async () => {
    const list = await svc('users', 'list');
    expect(list.stdout).toMatch(/^username +subject +email +state +last sign-in\nalice +[\w-]{22} +alice@example.com +enabled +-\nbob +[\w-]{22} +- +enabled +-\n$/);
    const json = JSON.parse((await svc('users', 'list', '--json')).stdout) as Array<Record<string, unknown>>;
    expect(json.map((u) => u.username)).toEqual(['alice', 'bob']);
    expect(json[0]).toEqual({
      subjectId: expect.any(String), username: 'alice', email: 'alice@example.com', emailVerified: true, claims: { name: 'Alice Smith', age: 42 }, disabled: false,
      hasPassword: true, created: expect.any(String), updated: expect.any(String), lastSignIn: null, upstreamIdentities: [],
    });
    const show = await svc('users', 'show', 'Alice');
    expect(show.stdout).toContain('username: alice\n');
    expect(show.stdout).toContain('claims: {"name":"Alice Smith","age":42}\n');
    expect(show.stdout + JSON.stringify(json)).not.toContain('$scrypt$');
    expect(await svc('users', 'show', 'nobody')).toMatchObject({ code: 1, stderr: 'svc: no user "nobody" in the database (svc users list shows them).\n' });
  });

  it('updates, disables, enables, unlinks and removes', async () => {
    expect((await svc('users', 'update', 'alice', '--email', '', '--remove-claim', 'age', '--claim', 'locale=de')).stdout).toBe('user "alice" updated.\n');
    expect(await stored('alice')).toMatchObject({ email: undefined, claims: { name: 'Alice Smith', locale: 'de' } });
    expect((await svc('users', 'disable', 'alice')).stdout).toBe('user "alice" disabled; 0 sessions and tokens ended.\n');
    expect((await stored('alice'))?.disabled).toBe(true);
    expect(JSON.parse((await svc('users', 'enable', 'alice', '--json')).stdout)).toMatchObject({ username: 'alice', disabled: false, ended: 0 });
    expect(await svc('users', 'unlink', 'alice', 'github')).toMatchObject({ code: 1, stderr: 'svc: user "alice" has no github identity linked.\n' });
    expect((await svc('users', 'remove', 'bob')).stdout).toBe('user "bob" removed; 0 sessions and tokens ended.\n');
    expect(await stored('bob')).toBeUndefined();
  });

  it('refuses a memory store and unknown actions', async () => {
    expect(await svcWith(join(dir, 'memory.json'), 'users', 'list')).toMatchObject({
      code: 1, stderr: 'svc: the config\'s store is "memory": nothing written here would reach the service. Use "sqlite:<path>" or "postgres://...".\n',
    });
    expect(await svc('users', 'rename', 'alice')).toMatchObject({ code: 1, stderr: 'svc: unknown action "rename": use one of: add, list, show, update, disable, enable, remove, set-password, unlink, factors, remove-factor (svc users --help)\n' });
  });
});
