/**
 * The SQLite database is its owner's alone (issue 33, newcomer's trial): the service creates
 * the file, its `-wal` and `-shm` companions and its folder for the owner only, whatever the
 * umask lets through, and start-up names an existing file that others can read.
 */
import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app/create-app.js';
import { checkConfig } from '../../src/config/load.js';
import { openSqlite } from '../../src/store/sql/sqlite.js';
import type { WideFile } from '../../src/store/sql/file-modes.js';

let dir: string;
let umask: number;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-modes-'));
  // The usual default, under which a plain open makes -rw-r--r--.
  umask = process.umask(0o022);
});
afterEach(() => {
  process.umask(umask);
  rmSync(dir, { recursive: true, force: true });
});

const modeOf = (path: string): string => `0${(statSync(path).mode & 0o777).toString(8)}`;

describe('the SQLite files', () => {
  it('are created 0600, in folders created 0700, the -wal and -shm files included', async () => {
    const path = join(dir, 'data', 'nested', 'svc.db');
    const store = openSqlite(path);
    await store.migrate();
    await store.add({ key: 'k', type: 't', clientId: 'c', subjectId: undefined, sessionId: undefined, createdAt: 0, expiresAt: Date.now() + 60_000, consumedAt: undefined, data: '{}' });
    expect(modeOf(path)).toBe('0600');
    expect(modeOf(`${path}-wal`)).toBe('0600');
    expect(modeOf(`${path}-shm`)).toBe('0600');
    expect(modeOf(join(dir, 'data'))).toBe('0700');
    expect(modeOf(join(dir, 'data', 'nested'))).toBe('0700');
    await store.close();
  });

  it('an existing file keeps its mode and is reported when others can read it; a private one is not', async () => {
    const path = join(dir, 'svc.db');
    writeFileSync(path, '');
    chmodSync(path, 0o644);
    const reported: WideFile[] = [];
    const store = openSqlite(path, { onFileOpenToOthers: (f) => reported.push(f) });
    await store.close();
    expect(reported).toEqual([{ file: path, mode: '0644' }]);
    expect(modeOf(path)).toBe('0644');

    chmodSync(path, 0o600);
    for (const suffix of ['-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
    const none: WideFile[] = [];
    await openSqlite(path, { onFileOpenToOthers: (f) => none.push(f) }).close();
    expect(none).toEqual([]);
  });

  it('start-up logs one warning naming the file and its mode', async () => {
    const path = join(dir, 'svc.db');
    writeFileSync(path, '');
    chmodSync(path, 0o640);
    const lines: string[] = [];
    const logs = new Writable({ write: (chunk: Buffer, _enc, done) => { lines.push(...chunk.toString().split('\n').filter(Boolean)); done(); } });
    const app = await createApp(checkConfig({ issuer: 'http://127.0.0.1:5000', store: `sqlite:${path}`, pluginDirs: [] }, dir), { logDestination: logs });
    await app.close();
    const warnings = lines.map((l) => JSON.parse(l) as { msg: string; file?: string; mode?: string }).filter((l) => l.file !== undefined);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ file: path, mode: '0640' });
    expect(warnings[0]!.msg).toContain(`database file ${path} is open to other local users (mode 0640)`);
  });
});
