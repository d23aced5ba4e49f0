/**
 * docs/guides/signing-users-in.md "Sign in a user", run verbatim against a config `svc init` wrote
 * (the default, `--for both`), with the `export` line it printed: the walk a newcomer follows
 * right after `svc init`, with no sample config in sight. (The same against the installed
 * package: test/e2e/package-install.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInitService, type InitService } from '../support/init-service.js';
import { docSection, runReadmeScript, shellBlocks } from '../support/readme.js';

let service: InitService;

beforeAll(async () => {
  service = await startInitService('svc-init-sign-in-');
});
afterAll(() => service?.close());

describe('"Sign in a user" against what svc init wrote', () => {
  it('runs verbatim with the values svc init printed exported', async () => {
    const walk = shellBlocks(docSection('docs/guides/signing-users-in.md', '## Sign in a user'))[0]!;
    const stdout = await runReadmeScript(walk, { url: service.server.url, cwd: service.dir, env: service.values.exported });
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
    const stdout = await runReadmeScript(walk, { url: service.server.url, cwd: service.dir, env: { ...service.values.exported, CLIENT_SECRET: 'webapp-secret' } });
    expect(JSON.parse(stdout.split('\n')[1]!)).toEqual({ error: 'invalid_client', error_description: 'Client authentication failed.' });
  });
});
