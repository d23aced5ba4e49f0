/**
 * What the device flow writes to the database (issue 14, point 9a): the device code and the
 * user code appear nowhere in plain, in any form a user could type.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { startServer, type TestServer } from '../support/server.js';
import { codesFor, deviceConfig } from '../device/helpers.js';

let dir: string;
let server: TestServer;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-device-records-'));
  server = await startServer(await deviceConfig({ store: `sqlite:${join(dir, 'svc.db')}` }));
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

it('stores neither the device code nor the user code in plain', async () => {
  const codes = await codesFor(server, { client_id: 'tv' });
  const normalized = codes.user_code.replace(/-/g, '');
  const raw = new BetterSqlite3(join(dir, 'svc.db'), { readonly: true });
  try {
    const rows = raw.prepare("select * from persisted_grants where type in ('device_code', 'user_code')").all();
    expect(rows).toHaveLength(2);
    const dump = JSON.stringify(rows);
    for (const plain of [codes.device_code, codes.user_code, normalized]) expect(dump).not.toContain(plain);
  } finally {
    raw.close();
  }
});
