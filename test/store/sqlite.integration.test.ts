import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqlite } from '../../src/store/sql/sqlite.js';
import { StoreUnavailableError, type PersistedGrant } from '../../src/store/store.js';

const grant: PersistedGrant = {
  key: 'kept-handle',
  type: 'refresh_token',
  clientId: 'client-a',
  subjectId: 'alice',
  sessionId: undefined,
  createdAt: 1000,
  expiresAt: 2000,
  consumedAt: undefined,
  data: '{}',
};

describe('openSqlite', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-sqlite-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps data across closing and reopening the same file, in WAL mode', async () => {
    const path = join(dir, 'a', 'b', 'svc.db');
    const first = openSqlite(path);
    await first.migrate();
    await first.add(grant);
    await first.close();

    const second = openSqlite(path);
    await second.migrate();
    expect(await second.get('kept-handle')).toEqual(grant);
    await second.close();

    const raw = new BetterSqlite3(path, { readonly: true });
    expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
    raw.close();
  });

  it('names the path and the reason when the file cannot be opened', () => {
    const file = join(dir, 'plain-file');
    writeFileSync(file, 'not a folder');
    const path = join(file, 'svc.db');

    expect(() => openSqlite(path)).toThrow(
      new RegExp(`^Cannot open the SQLite store at "${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}": E(NOTDIR|EXIST)`),
    );
  });

  it('names the path when the file is not a database', async () => {
    const path = join(dir, 'garbage.db');
    writeFileSync(path, 'x'.repeat(4096));

    expect(() => openSqlite(path)).toThrow(`Cannot open the SQLite store at "${path}": file is not a database`);
  });

  it('reports a write blocked past the busy timeout as StoreUnavailableError, without data', async () => {
    const path = join(dir, 'busy.db');
    const store = openSqlite(path, { busyTimeoutMs: 20 });
    await store.migrate();
    const other = new BetterSqlite3(path);
    other.exec('begin exclusive');
    try {
      const failure = await store.add(grant).catch((error: unknown) => error);

      expect(failure).toBeInstanceOf(StoreUnavailableError);
      expect((failure as Error).message).toBe('SQLite store unavailable during add: SQLITE_BUSY.');
    } finally {
      other.exec('rollback');
      other.close();
      await store.close();
    }
  });
});
