/**
 * The README's "Users" commands, run verbatim with bash, curl and the CLI against the sample
 * config on a SQLite file (only the base URL is swapped for the test server's, and `npx svc` for
 * this checkout's compiled CLI, test/support/compiled-service.ts).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserConfig } from '../../src/config/schema.js';
import { firstPartyPlugins, startServer, type TestServer } from '../support/server.js';
import { docSection, npxSvc, sampleConfig } from '../support/readme.js';
import { testKeyFiles } from '../support/test-keys.js';

let server: TestServer | undefined;
const dir = mkdtempSync(join(tmpdir(), 'svc-readme-users-'));
const configFile = join(dir, 'svc.config.json');

beforeAll(async () => {
  const sample: UserConfig = { ...(await sampleConfig()), store: `sqlite:${join(dir, 'svc.db')}`, pluginDirs: [firstPartyPlugins], signing: { keys: testKeyFiles(dir) } };
  server = await startServer(sample);
  writeFileSync(configFile, JSON.stringify({ ...sample, issuer: server.url }));
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('docs/guides/signing-users-in.md "Users"', () => {
  it('adds a user who signs in at once; disabled, cannot; a generated password; update and show', async () => {
    const [script] = [...docSection('docs/guides/signing-users-in.md', '## Users', '## Sign in with your identity provider').matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
    const { stdout, stderr } = await promisify(execFile)(
      'bash', ['-euo', 'pipefail', '-c', script!.replaceAll('npx svc', npxSvc)],
      { cwd: dir, timeout: 120_000, env: { ...process.env, SVC_CONFIG: configFile, SVC: server!.url } },
    );
    const lines = stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^user "erin" added \(subject [\w-]{22}\)\.$/);
    expect(lines[1]).toMatch(/^username +subject +email +state +last sign-in$/);
    expect(lines[2]).toMatch(/^erin +[\w-]{22} +erin@example.com +enabled +-$/);
    const granted = JSON.parse(lines[3]!) as Record<string, unknown>;
    expect(granted).toMatchObject({ token_type: 'Bearer', access_token: expect.any(String), id_token: expect.any(String) });
    expect(lines[4]).toMatch(/^user "erin" disabled; \d+ sessions? and tokens? ended\.$/);
    expect(JSON.parse(lines[5]!)).toEqual({ error: 'invalid_grant', error_description: 'The username or password is incorrect.' });
    expect(lines[6]).toBe('user "erin" enabled.');
    expect(JSON.parse(lines[7]!)).toEqual({ subjectId: expect.any(String), username: 'erin', password: expect.stringMatching(/^[\w-]{20}$/) });
    expect(lines[8]).toBe('user "erin" updated.');
    expect(JSON.parse(lines[9]!)).toMatchObject({
      username: 'erin', email: 'erin@example.com', emailVerified: true, claims: { name: 'Erin Example', given_name: 'Erin', family_name: 'Example' },
      disabled: false, hasPassword: true, lastSignIn: expect.stringMatching(/Z$/),
    });
    expect(stderr).toBe('');
    expect(lines).toHaveLength(10);
  }, 120_000);
});
