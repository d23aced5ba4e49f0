/**
 * `svc init [folder] --for m2m|sign-in|both`: what each kind writes is a config the service
 * accepts, holding only hashes of what it prints once; a kind it does not know is refused with
 * the flag named. (The package as installed, and the sign-in walk against it:
 * test/e2e/package-install.test.ts and test/e2e/init-sign-in.test.ts.)
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { verifyPassword } from '../../src/oauth/password-hash.js';
import { hashSecret } from '../../src/sdk/hash.js';
import { initValues } from '../support/init-output.js';
import { repoRoot } from '../support/server.js';
import { runMain } from '../support/svc-in-process.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-init-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The written config, loaded as the service loads it (its package import pointed at this clone). */
async function loadWritten(folder: string) {
  const file = join(folder, 'svc.config.ts');
  const text = readFileSync(file, 'utf8');
  writeFileSync(file, text.replace("from 'svc-token-service/config'", `from ${JSON.stringify(join(repoRoot, 'src/config/define-config.ts'))}`));
  return { text, config: (await loadConfig({ path: file })).config };
}

describe('svc init --for', () => {
  it('m2m: an API and a client_credentials client, no user, no sign-in client', async () => {
    const folder = join(dir, 'm2m');
    const run = await runMain('init', folder, '--for', 'm2m');
    expect(run.code, run.stderr).toBe(0);
    const values = initValues(run.stdout);
    expect(values).toMatchObject({ clientSecret: expect.stringMatching(/^[\w-]{43}$/), apiSecret: expect.stringMatching(/^[\w-]{43}$/), webappSecret: undefined, userPassword: undefined, exported: {} });
    const { text, config } = await loadWritten(folder);
    expect(text).toContain("// Written by `svc init --for m2m`.");
    expect(config.clients.map((c) => c.clientId)).toEqual(['app']);
    expect(config.users).toEqual([]);
    expect(config.identityResources.map((r) => r.name)).not.toContain('profile');
    expect(text).toContain(`value: '${hashSecret(values.clientSecret!)}'`);
    expect(text).toContain(`value: '${hashSecret(values.apiSecret!)}'`);
  });

  it('sign-in: identity resources, a code-flow client and a user whose password only the printout holds', async () => {
    const folder = join(dir, 'sign-in');
    const run = await runMain('init', folder, '--for', 'sign-in');
    expect(run.code, run.stderr).toBe(0);
    const values = initValues(run.stdout);
    expect(values.clientSecret).toBeUndefined();
    expect(values.apiSecret).toBeUndefined();
    expect(values.exported).toEqual({ CLIENT_ID: 'webapp', CLIENT_SECRET: values.webappSecret, USER_NAME: 'demo', USER_PASSWORD: values.userPassword });
    expect(run.stdout).toContain('Then, for the walk in docs/guides/signing-users-in.md "Sign in a user", in the same shell:\n');
    const { text, config } = await loadWritten(folder);
    expect(text).not.toContain(values.webappSecret!);
    expect(text).not.toContain(values.userPassword!);
    expect(config.identityResources.map((r) => r.name)).toEqual(expect.arrayContaining(['openid', 'profile', 'email']));
    expect(config.clients).toHaveLength(1);
    expect(config.clients[0]).toMatchObject({
      clientId: 'webapp', allowedGrantTypes: ['authorization_code', 'refresh_token'], allowedScopes: ['openid', 'profile', 'email'],
      allowOfflineAccess: true, redirectUris: ['http://localhost:8080/callback'], postLogoutRedirectUris: ['http://localhost:8080/'],
    });
    expect(text).toContain(`value: '${hashSecret(values.webappSecret!)}'`);
    expect(config.users).toHaveLength(1);
    const [user] = config.users;
    expect(user).toMatchObject({ username: 'demo', subjectId: expect.stringMatching(/^[\w-]{22}$/) });
    expect(await verifyPassword(values.userPassword!, user!.password!)).toBe(true);
  });

  it('both, the default: everything, the web app allowed the API scope too', async () => {
    const folder = join(dir, 'both');
    const run = await runMain('init', folder);
    expect(run.code, run.stderr).toBe(0);
    const values = initValues(run.stdout);
    expect([values.clientSecret, values.apiSecret, values.webappSecret, values.userPassword].every((v) => /^[\w-]{43}$/.test(v ?? ''))).toBe(true);
    expect(new Set([values.clientSecret, values.apiSecret, values.webappSecret, values.userPassword]).size).toBe(4);
    const { text, config } = await loadWritten(folder);
    expect(text).toContain("// Written by `svc init --for both`.");
    expect(config.clients.map((c) => [c.clientId, c.allowedScopes])).toEqual([['app', ['api.read']], ['webapp', ['openid', 'profile', 'email', 'api.read']]]);
    expect(config.users.map((u) => u.username)).toEqual(['demo']);
  });

  it('refuses a kind it does not know, naming the flag, and writes nothing', async () => {
    const run = await runMain('init', join(dir, 'bad'), '--for', 'web');
    expect(run).toEqual({ code: 1, stdout: '', stderr: 'svc: --for must be one of m2m, sign-in, both, got "web".\n' });
    expect(() => readFileSync(join(dir, 'bad', 'svc.config.ts'))).toThrow();
  });
});
