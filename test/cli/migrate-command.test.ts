/**
 * `svc migrate status` only reads; `svc migrate up` applies what is pending and says which; a
 * migration a newer release applied is shown as such (the old release's view after a rollback).
 * `svc migrate contract` refuses before the schema is up to date, and a new database is
 * contracted with its schema.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { migrations } from '../../src/store/sql/migrations.js';
import { contracts, timeOrderedFamiliesContract } from '../../src/store/sql/contracts.js';
import { runCli } from '../support/svc-process.js';

describe('svc migrate', () => {
  let dir: string;
  let configPath: string;
  const ids = migrations.map((m) => m.id);

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-migrate-'));
    configPath = join(dir, 'svc.config.json');
    writeFileSync(configPath, JSON.stringify({ issuer: 'https://svc.migrate.test', store: 'sqlite:svc.db', clients: [] }));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const tables = () => {
    const db = new BetterSqlite3(join(dir, 'svc.db'), { readonly: true });
    try {
      return (db.prepare("select name from sqlite_master where type = 'table'").all() as Array<{ name: string }>).map((t) => t.name);
    } finally {
      db.close();
    }
  };

  it('status lists every migration as pending on a new database and creates no table', async () => {
    const run = await runCli('migrate', 'status', '--config', configPath);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    for (const id of ids) expect(run.stdout).toMatch(new RegExp(`^${id} +pending +-$`, 'm'));
    expect(run.stdout).toMatch(new RegExp(`^${timeOrderedFamiliesContract.id} +not contracted +-$`, 'm'));
    expect(run.stdout).toContain(`0 applied, ${ids.length} pending\nnot contracted: once every node runs this release, run "svc migrate contract"\n`);
    expect(existsSync(join(dir, 'svc.db')) ? tables() : []).toEqual([]);
  });

  it('contract refuses while migrations are pending: no node of this release has started yet', async () => {
    const run = await runCli('migrate', 'contract', '--config', configPath);
    expect(run).toMatchObject({
      code: 1,
      stdout: '',
      stderr: `svc: ${ids.length} migration(s) of this release are pending, so no node of this release has started on this database yet: upgrade every node (or run "svc migrate up"), then contract.\n`,
    });
  });

  it('up applies the pending ones, then has nothing to do', async () => {
    const up = await runCli('migrate', 'up', '--config', configPath);
    expect(up.code, up.stderr).toBe(0);
    // A new database: no node of the previous release can be using it.
    expect(up.stdout).toBe(
      `${ids.map((id) => `applied ${id}\n`).join('')}${ids.length} applied; the schema is up to date\n` +
        `a new database, contracted at once: ${contracts.map((c) => c.id).join(', ')}\n`,
    );
    expect(tables()).toEqual(expect.arrayContaining(['svc_schema_migrations', 'persisted_grants', 'signing_keys']));

    const again = await runCli('migrate', 'up', '--config', configPath);
    expect(again.stdout).toBe('the schema is up to date; nothing to apply\n');
    const status = await runCli('migrate', '--config', configPath);
    for (const id of ids) expect(status.stdout).toMatch(new RegExp(`^${id} +applied +\\d{4}-\\d\\d-\\d\\dT`, 'm'));
    expect(status.stdout).toMatch(new RegExp(`^${timeOrderedFamiliesContract.id} +contracted +\\d{4}-\\d\\d-\\d\\dT`, 'm'));
    expect(status.stdout).toContain(`${ids.length} applied, 0 pending\n`);
    expect(status.stdout).not.toContain('not contracted');
    expect((await runCli('migrate', 'contract', '--config', configPath)).stdout).toBe('the database is contracted; nothing to record\n');
  });

  it('contract records the step on a database the previous release made, once', async () => {
    const db = new BetterSqlite3(join(dir, 'svc.db'));
    db.prepare('delete from svc_schema_migrations where id = ?').run(timeOrderedFamiliesContract.id);
    db.close();
    const run = await runCli('migrate', 'contract', '--config', configPath);
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe(
      `contracted ${timeOrderedFamiliesContract.id}: nodes write grant-family ids and refresh family keys in time order\n` +
        'every node of this release switches within 10 seconds; a node of the previous release must not run on this database again\n',
    );
    expect((await runCli('migrate', 'status', '--config', configPath)).stdout).toMatch(new RegExp(`^${timeOrderedFamiliesContract.id} +contracted +\\d{4}-`, 'm'));
  });

  it('marks a migration this release does not know as applied by a newer release', async () => {
    const db = new BetterSqlite3(join(dir, 'svc.db'));
    db.prepare('insert into svc_schema_migrations (id, applied_at) values (?, ?)').run('9999-from-the-future', Date.now() + 1000);
    db.close();
    const status = await runCli('migrate', 'status', '--config', configPath);
    expect(status.stdout).toMatch(/^9999-from-the-future +applied \(by a newer release\) +\d{4}-/m);
    expect(status.stdout).toContain(`${ids.length + 1} applied, 0 pending`);
  });

  it('names the actions it knows, and says a memory store has no schema', async () => {
    const wrong = await runCli('migrate', 'down', '--config', configPath);
    expect(wrong).toMatchObject({ code: 1, stderr: 'svc: unknown migrate action "down": use "svc migrate status", "svc migrate up" or "svc migrate contract".\n' });
    const memoryConfig = join(dir, 'memory.config.json');
    writeFileSync(memoryConfig, JSON.stringify({ issuer: 'https://svc.migrate.test', store: 'memory', clients: [] }));
    const memory = await runCli('migrate', 'status', '--config', memoryConfig);
    expect(memory.code).toBe(1);
    expect(memory.stderr).toContain('has no schema to migrate');
  });
});
