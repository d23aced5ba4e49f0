/**
 * Users the service keeps (issue 34), end to end over plain HTTP: a user added with
 * `svc users add` (the real CLI, a child process, against the SQLite file the server reads) gets
 * tokens through the password grant and signs in on the sign-in page, beside the config's users;
 * disabled, they cannot, and what they held (session, refresh token) is gone; a username the
 * config and the database both hold stops start-up.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserConfig } from '../../src/config/schema.js';
import { hashSecret } from '../../src/sdk/hash.js';
import { basic, postForm, startServer, type TestServer } from '../support/server.js';
import { alice, authorizeUrl, Browser, redeemWeb, signInAndAuthorize, signInClients, signInConfig, webRequest } from '../support/sign-in.js';
import { runCliWith } from '../support/svc-process.js';
import { testKeyFiles } from '../support/test-keys.js';

const erin = { username: 'erin', password: 'erin-password-1' };
let dir: string;
let configFile: string;
let config: UserConfig;
let server: TestServer;
let subject: string;

const svc = (input: string, ...args: string[]) => runCliWith({ input }, 'users', ...args, '--config', configFile);
const passwordGrant = (username: string, password: string) =>
  postForm(`${server.url}/connect/token`, { grant_type: 'password', username, password, scope: 'api1.read' }, { authorization: basic('app', 'app-secret') });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-users-e2e-'));
  config = await signInConfig({
    store: `sqlite:${join(dir, 'svc.db')}`,
    signing: { keys: testKeyFiles(dir) },
    clients: [...signInClients, { clientId: 'app', clientSecrets: [{ value: hashSecret('app-secret') }], allowedGrantTypes: ['password'], allowedScopes: ['api1.read'] }],
  });
  server = await startServer(config);
  configFile = join(dir, 'svc.config.json');
  writeFileSync(configFile, JSON.stringify({ ...config, issuer: server.url }));
  const added = await svc(`${erin.password}\n`, 'add', 'erin', '--email', 'erin@example.com', '--email-verified', 'true', '--claim', 'name=Erin Example', '--json');
  expect(added.code, added.stderr).toBe(0);
  subject = (JSON.parse(added.stdout) as { subjectId: string }).subjectId;
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a user added with svc users add', () => {
  it('gets tokens through the password grant, under their subject; a wrong password gets invalid_grant', async () => {
    const res = await passwordGrant('erin', erin.password);
    expect(res.status).toBe(200);
    expect(decodeJwt(res.body.access_token as string)).toMatchObject({ sub: subject, client_id: 'app', scope: 'api1.read' });
    expect(await passwordGrant('erin', 'not-erins-password')).toMatchObject({ status: 400, body: { error: 'invalid_grant', error_description: 'The username or password is incorrect.' } });
    // Config users sign in as before, beside the database's.
    expect((await passwordGrant(alice.username, alice.password)).status).toBe(200);
  });

  it('signs in on the sign-in page (username in any case) and gets an ID token and UserInfo with their claims; the sign-in is recorded', async () => {
    const flow = webRequest({ scope: 'openid profile email offline_access' });
    const redirect = await signInAndAuthorize(server, new Browser(server.url), flow.params, { username: 'Erin', password: erin.password });
    const tokens = await redeemWeb(server, redirect.searchParams.get('code')!, flow.verifier);
    expect(tokens.status).toBe(200);
    expect(decodeJwt(tokens.body.id_token as string)).toMatchObject({ sub: subject, name: 'Erin Example', email: 'erin@example.com' });
    const info = await fetch(`${server.url}/connect/userinfo`, { headers: { authorization: `Bearer ${tokens.body.access_token as string}` } });
    expect(await info.json()).toEqual({ sub: subject, acr: 'pwd', amr: ['pwd'], name: 'Erin Example', email: 'erin@example.com' });
    const shown = JSON.parse((await svc('', 'show', 'erin', '--json')).stdout) as { lastSignIn: string | null };
    expect(shown.lastSignIn).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it('disabled, cannot sign in or use the password grant, and their session and refresh token are gone', async () => {
    const browser = new Browser(server.url);
    const flow = webRequest({ scope: 'openid profile offline_access' });
    const redirect = await signInAndAuthorize(server, browser, flow.params, erin);
    const tokens = await redeemWeb(server, redirect.searchParams.get('code')!, flow.verifier);
    const refreshToken = tokens.body.refresh_token as string;
    expect(refreshToken).toEqual(expect.any(String));

    const disabled = await svc('', 'disable', 'erin');
    expect(disabled.stdout).toMatch(/^user "erin" disabled; [1-9]\d* sessions and tokens ended\.\n$/);

    const refresh = await postForm(`${server.url}/connect/token`, { grant_type: 'refresh_token', refresh_token: refreshToken }, { authorization: basic('web', 'web-secret') });
    expect(refresh).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(await passwordGrant('erin', erin.password)).toMatchObject({ status: 400, body: { error: 'invalid_grant', error_description: 'The username or password is incorrect.' } });
    const info = await fetch(`${server.url}/connect/userinfo`, { headers: { authorization: `Bearer ${tokens.body.access_token as string}` } });
    expect(info.status).toBe(401);
    // The browser's session ended: the sign-in page again, and the password no longer works there.
    const again = webRequest();
    const page = await browser.get(authorizeUrl(server, again.params));
    expect(page.html).toContain('<h1>Sign in</h1>');
    const refused = await browser.submit(page, { username: 'erin', password: erin.password });
    expect(refused.location).toBeUndefined();
    expect(refused.html).toContain('The username or password is incorrect.');

    await svc('', 'enable', 'erin');
    expect((await passwordGrant('erin', erin.password)).status).toBe(200);
  });

  it('a username the config also holds (in another case) stops start-up naming both', async () => {
    const clash = await startServer({ ...config, users: [...(config.users ?? []), { subjectId: 'cfg-erin', username: 'ERIN', password: config.users![0]!.password }] }).catch((e: unknown) => e);
    expect(clash).toMatchObject({
      code: 'USER_CONFLICT',
      problems: [`users[2].username: "ERIN" is also a user in the database ("erin", subject ${subject}); remove it from one of them (svc users remove erin)`],
    });
  });
});
