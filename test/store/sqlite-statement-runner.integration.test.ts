import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sqliteStatementRunner } from '../../src/store/sql/sqlite-statement-runner.js';
import { openSqlite } from '../../src/store/sql/sqlite.js';
import type { PersistedGrant } from '../../src/store/store.js';

const insert = 'insert into t (k, v) values (?, ?)';
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('sqliteStatementRunner (group commit)', () => {
  let dir: string;
  let database: BetterSqlite3.Database;
  let reader: BetterSqlite3.Database;
  let commits: number;
  /** Replaces the runner's `commit` when set: runs instead of it. */
  let commitOverride: (() => never) | undefined;

  const prepare = (sql: string): BetterSqlite3.Statement => {
    const statement = database.prepare(sql);
    if (sql !== 'commit') return statement;
    return new Proxy(statement, {
      get(target, name) {
        if (name !== 'run') return Reflect.get(target, name, target) as unknown;
        return () => {
          if (commitOverride) commitOverride();
          commits++;
          return target.run();
        };
      },
    });
  };
  const rows = (): unknown[] => reader.prepare('select k, v from t order by k').all();

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-group-commit-'));
    database = new BetterSqlite3(join(dir, 'db.sqlite'));
    database.exec('pragma journal_mode = wal; create table t (k text primary key, v text not null)');
    reader = new BetterSqlite3(join(dir, 'db.sqlite'), { readonly: true });
    commits = 0;
    commitOverride = undefined;
  });
  afterEach(() => {
    reader.close();
    database.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('commits the writes of one turn together, and answers none before that commit', async () => {
    const { execute } = sqliteStatementRunner(database, prepare);
    const answered: string[] = [];
    const writes = ['a', 'b', 'c'].map((k) => execute(insert, [k, `value ${k}`]).then(() => answered.push(k)));

    await Promise.resolve();
    expect(answered).toEqual([]);
    expect(rows()).toEqual([]);

    await Promise.all(writes);
    expect(answered).toEqual(['a', 'b', 'c']);
    expect(commits).toBe(1);
    expect(rows()).toEqual([
      { k: 'a', v: 'value a' },
      { k: 'b', v: 'value b' },
      { k: 'c', v: 'value c' },
    ]);

    await execute(insert, ['d', 'value d']);
    expect(commits).toBe(2);
  });

  it('fails only the write whose own statement fails; the others of its batch are kept', async () => {
    const { execute } = sqliteStatementRunner(database, prepare);

    const results = await Promise.allSettled([
      execute(insert, ['a', 'first']),
      execute(insert, ['a', 'same key']),
      execute(insert, ['b', null]),
      execute(insert, ['c', 'third']),
    ]);

    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toMatchObject({ code: 'SQLITE_CONSTRAINT_PRIMARYKEY' });
    expect((results[2] as PromiseRejectedResult).reason).toMatchObject({ code: 'SQLITE_CONSTRAINT_NOTNULL' });
    expect(rows()).toEqual([
      { k: 'a', v: 'first' },
      { k: 'c', v: 'third' },
    ]);
  });

  it('keeps a group of statements all or nothing inside the turn, while the other writes of the turn commit', async () => {
    const { execute, executeAll } = sqliteStatementRunner(database, prepare);
    database.exec("insert into t (k, v) values ('spent', 'unused')");
    const spend = { sql: "update t set v = 'used' where k = ? and v = 'unused'", parameters: ['spent'] };
    const add = (k: string) => ({ sql: insert, parameters: [k, `value ${k}`] });

    const [first, second, failing, single] = await Promise.allSettled([
      executeAll([spend, add('a')]),
      executeAll([spend, add('b')]),
      executeAll([add('c'), add('a')]),
      execute(insert, ['d', 'value d']),
    ]);

    expect(first).toEqual({ status: 'fulfilled', value: undefined });
    expect(second).toEqual({ status: 'fulfilled', value: 0 });
    expect(failing).toMatchObject({ status: 'rejected', reason: { code: 'SQLITE_CONSTRAINT_PRIMARYKEY' } });
    expect(single.status).toBe('fulfilled');
    expect(commits).toBe(1);
    expect(rows()).toEqual([
      { k: 'a', v: 'value a' },
      { k: 'd', v: 'value d' },
      { k: 'spent', v: 'used' },
    ]);
  });

  it('fails every write of the batch, and keeps none, when the commit fails', async () => {
    const { execute } = sqliteStatementRunner(database, prepare);
    commitOverride = () => {
      throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
    };

    const results = await Promise.allSettled([execute(insert, ['a', '1']), execute(insert, ['b', '2'])]);

    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect((results[0] as PromiseRejectedResult).reason).toMatchObject({ code: 'SQLITE_FULL' });
    expect(database.inTransaction).toBe(false);
    expect(rows()).toEqual([]);

    commitOverride = undefined;
    await execute(insert, ['c', '3']);
    expect(rows()).toEqual([{ k: 'c', v: '3' }]);
  });

  it('answers reads at once, from what is committed', async () => {
    const { execute } = sqliteStatementRunner(database, prepare);
    await execute(insert, ['a', '1']);

    const pending = execute(insert, ['b', '2']);
    const read = await execute<{ k: string }>('select k from t order by k', []);

    expect(read.rows).toEqual([{ k: 'a' }]);
    await pending;
    expect((await execute<{ k: string }>('select k from t order by k', [])).rows).toEqual([{ k: 'a' }, { k: 'b' }]);
  });

  it('holds writes while a transaction of the host is open, and commits them after it', async () => {
    const { execute } = sqliteStatementRunner(database, prepare);
    database.exec('begin immediate');
    database.exec("insert into t (k, v) values ('m', 'migration')");
    let written = false;
    const write = execute(insert, ['a', '1']).then(() => (written = true));

    await turn();
    await turn();
    expect(written).toBe(false);
    database.exec('rollback');

    await write;
    expect(rows()).toEqual([{ k: 'a', v: '1' }]);
  });
});

describe('the SQLite store with group commit', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-group-commit-store-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  const grant = (key: string): PersistedGrant => ({
    key,
    type: 'reference_token',
    clientId: 'client-a',
    subjectId: undefined,
    sessionId: undefined,
    createdAt: 1000,
    expiresAt: Date.now() + 60_000,
    consumedAt: undefined,
    data: '{}',
  });

  it('commits a write asked for just before close, so nothing answered is lost', async () => {
    const path = join(dir, 'svc.db');
    const store = openSqlite(path);
    await store.migrate();

    const added = store.add(grant('last-one'));
    await store.close();
    await added;

    const reopened = openSqlite(path);
    expect((await reopened.get('last-one'))?.clientId).toBe('client-a');
    await reopened.close();
  });

  it('lets exactly one of two adds of one key in one batch win', async () => {
    const store = openSqlite(join(dir, 'svc.db'));
    await store.migrate();

    const results = await Promise.allSettled([store.add(grant('same')), store.add(grant('same'))]);

    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    await store.close();
  });
});
