/**
 * docs/guides/signing-users-in.md "Sign in a user", run verbatim against a config `svc init` wrote
 * (the default, `--for both`), with the `export` line it printed: the walk a newcomer follows
 * right after `svc init`, with no sample config in sight. (The same against the installed
 * package: test/e2e/package-install.test.ts.)
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importDefault } from '../../src/config/module-loader.js';
import type { UserConfig } from '../../src/config/schema.js';
import { initValues, type InitValues } from '../support/init-output.js';
import { docSection, runReadmeScript, shellBlocks } from '../support/readme.js';
import { repoRoot, startServer, type TestServer } from '../support/server.js';
import { runMain } from '../support/svc-in-process.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-init-sign-in-'));
let server: TestServer;
let values: InitValues;

beforeAll(async () => {
  const folder = join(dir, 'deployment');
  const run = await runMain('init', folder);
  expect(run.code, run.stderr).toBe(0);
  values = initValues(run.stdout);
  const file = join(folder, 'svc.config.ts');
  writeFileSync(file, readFileSync(file, 'utf8').replace("from 'svc-token-service/config'", `from ${JSON.stringify(join(repoRoot, 'src/config/define-config.ts'))}`));
  // What the test server decides itself (port, store, plugins, keys) left out; the rest as written.
  const { port: _port, store: _store, pluginDirs: _plugins, signing: _signing, ...config } = (await importDefault(file)) as UserConfig;
  server = await startServer(config);
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('"Sign in a user" against what svc init wrote', () => {
  it('runs verbatim with the values svc init printed exported', async () => {
    const walk = shellBlocks(docSection('docs/guides/signing-users-in.md', '## Sign in a user'))[0]!;
    const stdout = await runReadmeScript(walk, { url: server.url, cwd: dir, env: values.exported });
    const lines = stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^http:\/\/localhost:8080\/callback\?code=[\w-]+&state=af0ifjsldkj&iss=/);
    expect(JSON.parse(lines[1]!)).toMatchObject({ token_type: 'Bearer', id_token: expect.any(String), refresh_token: expect.any(String), scope: 'openid profile offline_access' });
    expect(JSON.parse(lines[2]!)).toEqual({ sub: expect.stringMatching(/^[\w-]{22}$/), acr: 'pwd', amr: ['pwd'], name: 'Demo User', given_name: 'Demo', family_name: 'User' });
    expect(lines[3]).toMatch(/^http:\/\/localhost:8080\/callback\?code=/);
    expect(lines[4]).toBe('http://localhost:8080/?state=bye');
    expect(lines[5]).toMatch(/^http:\/\/localhost:8080\/callback\?error=login_required&/);
    expect(JSON.parse(lines[6]!)).toMatchObject({ request_uri: expect.stringMatching(/^urn:ietf:params:oauth:request_uri:/), expires_in: 60 });
  });

  it("with the sample's client secret instead of the printed one, the code is not traded: the walk uses the variables", async () => {
    const walk = shellBlocks(docSection('docs/guides/signing-users-in.md', '## Sign in a user'))[0]!;
    const stdout = await runReadmeScript(walk, { url: server.url, cwd: dir, env: { ...values.exported, CLIENT_SECRET: 'webapp-secret' } });
    expect(JSON.parse(stdout.split('\n')[1]!)).toEqual({ error: 'invalid_client', error_description: 'Client authentication failed.' });
  });
});
