/**
 * docs/guides/getting-started.md, the `curl -u app:<client secret>` block after `svc init`, run
 * verbatim (only `<client secret>` replaced by the secret `svc init` printed, as a reader pastes
 * it) against a service started from the config `svc init` wrote: the first token a newcomer gets.
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

const dir = mkdtempSync(join(tmpdir(), 'svc-getting-started-'));
let server: TestServer;
let values: InitValues;

/** The guide's block that asks for the first token, as written. */
function tokenBlock(): string {
  const blocks = shellBlocks(docSection('docs/guides/getting-started.md', '## Install it as a package', '## CLI'));
  const block = blocks.find((b) => b.includes('curl -s -u app:<client secret>'));
  if (block === undefined) throw new Error('docs/guides/getting-started.md has no block with curl -s -u app:<client secret>');
  return block;
}

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

describe('getting started: the first token with the secret svc init printed', () => {
  it('answers an access token for the client app with scope api.read', async () => {
    expect(values.clientSecret).toMatch(/^[\w-]{43}$/);
    const stdout = await runReadmeScript(tokenBlock().replace('<client secret>', values.clientSecret!), { url: server.url, cwd: dir });
    const answer = JSON.parse(stdout) as Record<string, unknown>;
    expect(answer).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: expect.any(Number), scope: 'api.read' });
    // A JWT for the API, issued to app.
    const claims = JSON.parse(Buffer.from((answer.access_token as string).split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
    expect(claims).toMatchObject({ iss: server.url, client_id: 'app', aud: 'api', scope: 'api.read' });
  });

  it('with a wrong secret in its place, the same block answers invalid_client', async () => {
    const stdout = await runReadmeScript(tokenBlock().replace('<client secret>', 'not-the-secret'), { url: server.url, cwd: dir });
    expect(JSON.parse(stdout)).toEqual({ error: 'invalid_client', error_description: 'Client authentication failed.' });
  });
});
