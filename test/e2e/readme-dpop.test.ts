/**
 * The README's DPoP commands, run verbatim with bash, openssl and curl against the sample
 * config. Only the base URL is swapped for the test server's, and `npx svc` for this checkout's
 * `bin/svc.mjs`, run from a temporary folder.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { startServer, type TestServer } from '../support/server.js';
import { readmeSection, runReadmeScript, sampleConfig, shellBlocks } from '../support/readme.js';

let server: TestServer;
const dir = mkdtempSync(join(tmpdir(), 'svc-readme-'));
beforeAll(async () => {
  server = await startServer(await sampleConfig());
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('README "Sender-constrained tokens: DPoP"', () => {
  it('works verbatim against the sample config', async () => {
    const stdout = await runReadmeScript(shellBlocks(readmeSection('## Sender-constrained tokens: DPoP'))[0]!, { url: server.url, cwd: dir });
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
