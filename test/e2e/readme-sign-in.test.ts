/**
 * The README's "Sign in a user" commands, run verbatim with bash and curl against the sample
 * config (only the base URL is swapped for the test server's): sign-in, code, tokens,
 * UserInfo, prompt=none, logout, PAR.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importDefault } from '../../src/config/module-loader.js';
import type { UserConfig } from '../../src/config/schema.js';
import { repoRoot, startServer, type TestServer } from '../support/server.js';

let server: TestServer;
const dir = mkdtempSync(join(tmpdir(), 'svc-readme-'));
beforeAll(async () => {
  const sample = (await importDefault(join(repoRoot, 'svc.config.ts'))) as UserConfig;
  const { port: _port, store: _store, ...rest } = sample;
  server = await startServer(rest);
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

function readmeBlock(): string {
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Sign in a user'));
  return /```sh\n([\s\S]*?)```/.exec(section)![1]!;
}

describe('README "Sign in a user"', () => {
  it('works verbatim against the sample config', async () => {
    const script = readmeBlock().replaceAll('http://localhost:5000', server.url);
    const { stdout } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', script], { cwd: dir, timeout: 60_000 });
    const lines = stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^http:\/\/localhost:8080\/callback\?code=[\w-]+&state=af0ifjsldkj&iss=/);
    const tokens = JSON.parse(lines[1]!) as Record<string, unknown>;
    expect(Object.keys(tokens).sort()).toEqual(['access_token', 'expires_in', 'id_token', 'refresh_token', 'scope', 'token_type']);
    expect(JSON.parse(lines[2]!)).toEqual({ sub: '818727', name: 'Alice Smith', given_name: 'Alice', family_name: 'Smith' });
    expect(lines[3]).toMatch(/^http:\/\/localhost:8080\/callback\?code=/);
    expect(lines[4]).toBe('http://localhost:8080/?state=bye');
    expect(lines[5]).toMatch(/^http:\/\/localhost:8080\/callback\?error=login_required&/);
    expect(JSON.parse(lines[6]!)).toMatchObject({ request_uri: expect.stringMatching(/^urn:ietf:params:oauth:request_uri:/), expires_in: 60 });
  });
});
