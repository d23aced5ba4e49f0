/**
 * The README's DPoP commands, run verbatim with bash, openssl and curl against the sample
 * config. Only the base URL is swapped for the test server's, and `npx svc` for this checkout's
 * `bin/svc.mjs`, run from a temporary folder.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { importDefault } from '../../src/config/module-loader.js';
import type { UserConfig } from '../../src/config/schema.js';
import { repoRoot, startServer, type TestServer } from '../support/server.js';

let server: TestServer;
const dir = mkdtempSync(join(tmpdir(), 'svc-readme-dpop-'));
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
  const section = readme.slice(readme.indexOf('## Sender-constrained tokens: DPoP'));
  return /```sh\n([\s\S]*?)```/.exec(section)![1]!;
}

describe('README "Sender-constrained tokens: DPoP"', () => {
  it('works verbatim against the sample config', async () => {
    const script = readmeBlock()
      .replaceAll('http://localhost:5000', server.url)
      .replaceAll('npx svc', `${JSON.stringify(process.execPath)} ${JSON.stringify(join(repoRoot, 'bin/svc.mjs'))}`);
    const { stdout } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', script], { cwd: dir, timeout: 60_000 });
    // curl -s prints no newline after a body: the answers follow each other on one line.
    const userinfoAt = stdout.indexOf('{"sub"');
    const bearerAt = stdout.indexOf('HTTP/1.1 ');
    const [tokenJson, userinfoJson, reply] = [stdout.slice(0, userinfoAt), stdout.slice(userinfoAt, bearerAt), stdout.slice(bearerAt)];
    const token = JSON.parse(tokenJson) as Record<string, unknown>;
    expect(token).toMatchObject({ token_type: 'DPoP', scope: 'api1.read' });
    expect(decodeJwt(token.access_token as string).cnf).toEqual({ jkt: expect.stringMatching(/^[\w-]{43}$/) });
    expect(JSON.parse(userinfoJson)).toEqual({ sub: expect.any(String) });
    expect(reply).toMatch(/^HTTP\/1\.1 401 /);
    expect(reply).toMatch(/^www-authenticate: DPoP error="invalid_token", /im);
  });
});
