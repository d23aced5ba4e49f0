/**
 * The README's "Sign in a user" commands, run verbatim with bash and curl against the sample
 * config (the test server's base URL given as SVC): sign-in, code, tokens,
 * UserInfo, prompt=none, logout, PAR.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';
import { docSection, runReadmeScript, sampleConfig, shellBlocks } from '../support/readme.js';

let server: TestServer;
const dir = mkdtempSync(join(tmpdir(), 'svc-readme-'));
beforeAll(async () => {
  server = await startServer(await sampleConfig());
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

const guide = 'docs/guides/signing-users-in.md';

describe('docs/guides/signing-users-in.md "Sign in a user"', () => {
  it('works verbatim against the sample config', async () => {
    const stdout = await runReadmeScript(shellBlocks(docSection(guide, '## Sign in a user'))[0]!, { url: server.url, cwd: dir });
    const lines = stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^http:\/\/localhost:8080\/callback\?code=[\w-]+&state=af0ifjsldkj&iss=/);
    const tokens = JSON.parse(lines[1]!) as Record<string, unknown>;
    expect(Object.keys(tokens).sort()).toEqual(['access_token', 'expires_in', 'id_token', 'refresh_token', 'scope', 'token_type']);
    expect(JSON.parse(lines[2]!)).toEqual({ sub: '818727', acr: 'pwd', amr: ['pwd'], name: 'Alice Smith', given_name: 'Alice', family_name: 'Smith' });
    expect(lines[3]).toMatch(/^http:\/\/localhost:8080\/callback\?code=/);
    expect(lines[4]).toBe('http://localhost:8080/?state=bye');
    expect(lines[5]).toMatch(/^http:\/\/localhost:8080\/callback\?error=login_required&/);
    expect(JSON.parse(lines[6]!)).toMatchObject({ request_uri: expect.stringMatching(/^urn:ietf:params:oauth:request_uri:/), expires_in: 60 });
  });

  // A base64url verifier starts with '-' one time in 64; node must not read it as an option.
  it("computes the PKCE challenge of a verifier that starts with '-'", () => {
    const line = shellBlocks(docSection(guide, '## Sign in a user'))[0]!.split('\n').find((l) => l.startsWith('CHALLENGE='))!;
    const verifier = '-KSB7iWMFgwtSOzxctu6RaXv5A4ntILR9NqomGX1Cf8';
    const challenge = execFileSync('bash', ['-euo', 'pipefail', '-c', `${line}\necho "$CHALLENGE"`], { env: { ...process.env, VERIFIER: verifier }, encoding: 'utf8' }).trim();
    expect(challenge).toBe(createHash('sha256').update(verifier).digest('base64url'));
  });
});
