/**
 * `svc start` with `admin` in the config (issue 39): the admin API listens on its own port beside
 * the public one, says so in the log, serves its document there and not on the public port, and
 * closes with the service on SIGTERM (exit 0).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/server.js';
import { runSvc, until, type SvcProcess } from '../support/svc-process.js';

let svc: SvcProcess | undefined;
const dir = mkdtempSync(join(tmpdir(), 'svc-admin-start-'));
afterAll(() => {
  if (svc && svc.proc.exitCode === null && svc.proc.signalCode === null) svc.proc.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

describe('svc start with the admin API on', () => {
  it('listens on admin.port beside the public port, and closes with the service', async () => {
    const port = await freePort();
    const adminPort = await freePort();
    const configFile = join(dir, 'svc.config.json');
    writeFileSync(configFile, JSON.stringify({
      port, store: 'memory', packagePlugins: [], pluginDirs: [],
      apiScopes: [{ name: 'admin' }], apiResources: [{ name: 'svc-admin', scopes: ['admin'] }],
      admin: { port: adminPort },
    }));
    svc = runSvc(configFile);
    const running = svc;
    await until('admin API listening', running, () => running.logs().some((l) => l.msg === 'admin API listening'));
    expect(running.logs().find((l) => l.msg === 'admin API listening')).toMatchObject({ url: `http://127.0.0.1:${adminPort}` });
    const document = await fetch(`http://127.0.0.1:${adminPort}/openapi.json`);
    expect(document.status).toBe(200);
    expect((await document.json() as { openapi: string }).openapi).toMatch(/^3\.1\./);
    expect((await fetch(`http://127.0.0.1:${port}/openapi.json`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${adminPort}/clients`)).status).toBe(401);
    running.proc.kill('SIGTERM');
    expect(await running.exited).toMatchObject({ code: 0, signal: null });
  });
});
