/**
 * The README's "Clients at run time" commands, run verbatim with bash, curl and the CLI against
 * the sample config on a SQLite file (only the base URL is swapped for the test server's, and
 * `npx svc` for this checkout's compiled CLI, test/support/compiled-service.ts, and its waits for a
 * change to reach the server scaled to the test server's refresh interval): add, use, rotate
 * with an overlap, show, test-auth; then the move of a config client, and a node restarted
 * without it authenticating it from the database.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importDefault } from '../../src/config/module-loader.js';
import type { UserConfig } from '../../src/config/schema.js';
import { basic, firstPartyPlugins, postForm, repoRoot, startServer, type TestServer } from '../support/server.js';
import { npxSvc } from '../support/readme.js';
import { testKeyFiles } from '../support/test-keys.js';

let server: TestServer | undefined;
let sample: UserConfig;
const dir = mkdtempSync(join(tmpdir(), 'svc-readme-clients-'));
const configFile = join(dir, 'svc.config.json');
/** For the CLI's config: each command builds the app to learn the plugins, and with keys given generates none. */
const cliSigning = (config: UserConfig) => ({ ...config.signing, keys: testKeyFiles(dir) });

beforeAll(async () => {
  const { port: _port, ...rest } = (await importDefault(join(repoRoot, 'svc.config.ts'))) as UserConfig;
  // A 1 s refresh instead of the default 5 s, and the guide's `sleep 6` (5 s and a margin)
  // scaled to match in `run` (2.5 s: a wider margin than the guide's), 7 s sooner.
  sample = { ...rest, store: `sqlite:${join(dir, 'svc.db')}`, pluginDirs: [firstPartyPlugins], clientStores: { refreshInterval: 1 } };
  server = await startServer(sample);
  // What the CLI reads: the same config, the same database (and the test keys).
  writeFileSync(configFile, JSON.stringify({ ...sample, issuer: server.url, signing: cliSigning(sample) }));
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

function readmeBlocks(): string[] {
  const guide = readFileSync(join(repoRoot, 'docs/guides/machine-to-machine.md'), 'utf8');
  const section = guide.slice(guide.indexOf('## Clients at run time'), guide.indexOf('## private_key_jwt'));
  return [...section.matchAll(/```(?:sh|ts)\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

const run = (script: string) =>
  promisify(execFile)('bash', ['-euo', 'pipefail', '-c', script.replaceAll('npx svc', npxSvc).replaceAll(/^sleep 6\b/gm, 'sleep 2.5')], {
    cwd: dir,
    timeout: 120_000,
    env: { ...process.env, SVC_CONFIG: configFile, SVC: server!.url },
  });

describe('docs/guides/machine-to-machine.md "Clients at run time"', () => {
  it('adds a client, uses it, rotates its secret with an overlap, shows and tests it', async () => {
    const [use] = readmeBlocks();
    const { stdout } = await run(use!);
    // curl prints no newline after a body: the three token responses run into what follows.
    const lines = stdout.replace(/\}(?=[{c])/g, '}\n').trim().split('\n');
    for (const i of [0, 1, 2]) expect(Object.keys(JSON.parse(lines[i]!) as object).sort()).toEqual(['access_token', 'expires_in', 'scope', 'token_type']);
    const show = lines.slice(3).join('\n');
    expect(show).toMatch(/^clientId: reports$/m);
    expect(show).toMatch(/^ {2}[0-9a-f]{8}\s+SharedSecret\s+\S+Z\s+\S+Z\s+-$/m);
    expect(show).toMatch(/^ {2}[0-9a-f]{8}\s+SharedSecret\s+\S+Z\s+-\s+-$/m);
    expect(lines.at(-1)).toBe('would authenticate');
  }, 120_000);

  it('moves a config client into the database; a node without it in the config still authenticates it', async () => {
    const [, move] = readmeBlocks();
    const { stdout } = await run(move!);
    expect(stdout).toBe('client "m2m" copied to the database with its 1 stored secret.\n');
    await server!.close();
    server = undefined;
    server = await startServer({ ...sample, clients: sample.clients!.filter((c) => c.clientId !== 'm2m') });
    const reply = await postForm(`${server.url}/connect/token`, { grant_type: 'client_credentials' }, { authorization: basic('m2m', 'm2m-secret') });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  }, 60_000);

  it('registration: the config snippet turns it on; register, use, read and delete a client', async () => {
    const [, , snippet, commands] = readmeBlocks();
    // The README's snippet is a property of the config object: evaluate it as one.
    const { registration } = new Function(`return { ${snippet} };`)() as Pick<UserConfig, 'registration'>;
    expect(registration).toEqual({ enabled: true, allowedScopes: ['openid', 'api1.read'] });
    await server!.close();
    server = undefined;
    // After the move above, m2m lives in the database only.
    const moved = { ...sample, clients: sample.clients!.filter((c) => c.clientId !== 'm2m'), registration };
    server = await startServer(moved);
    writeFileSync(configFile, JSON.stringify({ ...moved, issuer: server.url, signing: cliSigning(moved) }));
    const { stdout } = await run(commands!);
    const lines = stdout.replace(/\}(?=[{\d])/g, '}\n').trim().split('\n');
    const registered = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(registered).toMatchObject({ client_name: 'Reports', grant_types: ['client_credentials'], scope: 'api1.read', client_secret: expect.any(String), registration_access_token: expect.any(String) });
    expect(JSON.parse(lines[1]!)).toMatchObject({ token_type: 'Bearer', scope: 'api1.read' });
    expect(JSON.parse(lines[2]!)).toMatchObject({ client_id: registered.client_id, client_name: 'Reports' });
    expect(lines[3]).toBe('204');
  }, 90_000);
});
