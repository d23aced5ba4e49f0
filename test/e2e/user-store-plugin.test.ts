/**
 * Validating resource-owner credentials is a plugin point (issue 5, "Users and the password
 * grant"): a plugin's `resourceOwnerValidator` replaces the config's `users` for the password
 * grant, the device page's sign-in and ID token claims.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { listPlugins } from '../../src/cli/list-plugins.js';
import { hashPassword } from '../../src/oauth/password-hash.js';
import { hashSecret } from '../../src/sdk/hash.js';
import { firstPartyPlugins, startServer, type TestServer } from '../support/server.js';
import { accessClaims, tokenRequest } from '../fixtures/grant-plugins/world.js';
import { codesFor, decideOverHttp, deviceGrantType, poll } from '../device/helpers.js';

const userStorePlugins = fileURLToPath(new URL('../fixtures/user-store', import.meta.url));
const carol = { id: 'dir-0042', login: 'carol', password: 'carol-directory-password', name: 'Carol from the directory' };
const configUser = { subjectId: 'cfg-alice', username: 'alice', password: 'alice-config-password' };

let server: TestServer;
beforeAll(async () => {
  server = await startServer({
    pluginDirs: [firstPartyPlugins, userStorePlugins],
    plugins: { 'directory-users': { people: [carol] } },
    apiScopes: [{ name: 'api1.read' }],
    apiResources: [{ name: 'api1', scopes: ['api1.read'] }],
    identityResources: [{ name: 'openid', claims: ['sub'] }, { name: 'profile', claims: ['name'] }],
    // Still configured, but no longer the user store once a plugin provides one.
    users: [{ ...configUser, password: await hashPassword(configUser.password, { ln: 4, r: 8, p: 1 }) }],
    clients: [
      { clientId: 'web', clientSecrets: [{ value: hashSecret('web-secret') }], allowedGrantTypes: ['password'], allowedScopes: ['openid', 'profile', 'api1.read'] },
      { clientId: 'tv', requireClientSecret: false, allowedGrantTypes: [deviceGrantType], allowedScopes: ['openid', 'profile', 'api1.read'] },
    ],
  });
});
afterAll(() => server.close());

const password = (username: string, pw: string, scope = 'api1.read') =>
  tokenRequest(server, 'web', { grant_type: 'password', username, password: pw, scope });

describe('a plugin that provides the resourceOwnerValidator', () => {
  it('signs its users in with the password grant: sub is the directory id', async () => {
    const res = await password(carol.login, carol.password);
    expect(res.status).toBe(200);
    expect(accessClaims(res.body.access_token)).toMatchObject({ sub: carol.id, client_id: 'web', scope: 'api1.read', auth_time: expect.any(Number) });
  });

  it('gives ID tokens the claims its users have', async () => {
    const res = await password(carol.login, carol.password, 'openid profile');
    expect(res.status).toBe(200);
    const jwks = createLocalJWKSet((await (await fetch(`${server.url}/.well-known/openid-configuration/jwks`)).json()) as JSONWebKeySet);
    const { payload } = await jwtVerify(res.body.id_token as string, jwks, { issuer: server.url, audience: 'web' });
    expect(payload).toMatchObject({ sub: carol.id, name: carol.name });
  });

  it('answers a wrong password and an unknown user with the same invalid_grant', async () => {
    const wrong = await password(carol.login, 'not-carols-password');
    const unknown = await password('mallory', carol.password);
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual({ error: 'invalid_grant', error_description: 'The username or password is incorrect.' });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual(wrong.body);
  });

  it('replaces the config users rather than adding to them', async () => {
    const res = await password(configUser.username, configUser.password);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_grant', error_description: 'The username or password is incorrect.' });
  });

  it('replaces the database users too (svc users, issue 34)', async () => {
    await server.app.store.users.add({
      subjectId: 'db-dave', username: 'dave', email: undefined, emailVerified: false, claims: {}, disabled: false,
      passwordHash: await hashPassword('dave-database-password', { ln: 4, r: 8, p: 1 }), createdAt: 0,
    });
    const res = await password('dave', 'dave-database-password');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_grant', error_description: 'The username or password is incorrect.' });
  });

  it('signs its users in on the device page: the poller gets their token', async () => {
    const codes = await codesFor(server, { client_id: 'tv', scope: 'openid profile api1.read' });
    const done = await decideOverHttp(server.url, codes.verification_uri_complete, { username: carol.login, password: carol.password }, 'approve');
    expect(done.html).toContain('<h1>Device connected</h1>');
    const res = await poll(server, codes.device_code);
    expect(res.status).toBe(200);
    expect(accessClaims(res.body.access_token).sub).toBe(carol.id);
  });

  it('is named as the user store in the plugin list', () => {
    const listed = server.app.registry.plugins.map((p) => [p.name, p.resourceOwners]);
    expect(listed).toContainEqual(['directory-users', true]);
    expect(listed.filter(([, owners]) => owners)).toHaveLength(1);
  });
});

describe('`svc plugins`', () => {
  it('marks the plugin whose user store is in use', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-user-store-'));
    const configFile = join(dir, '.svcrc.json');
    writeFileSync(configFile, JSON.stringify({ store: 'memory', pluginDirs: [firstPartyPlugins, userStorePlugins], plugins: { 'directory-users': { people: [carol] } } }));
    const written: string[] = [];
    const write = process.stdout.write;
    process.stdout.write = ((chunk: string) => (written.push(String(chunk)), true)) as typeof process.stdout.write;
    try {
      expect(await listPlugins(configFile)).toBe(0);
    } finally {
      process.stdout.write = write;
      rmSync(dir, { recursive: true, force: true });
    }
    const blocks = written.join('').split(/\n(?=\S)/);
    expect(blocks.find((b) => b.startsWith('directory-users '))).toMatch(/\n {2}resource owners: +this plugin's user store \(instead of the config users\)\n?$/);
    expect(blocks.filter((b) => b.includes('resource owners:'))).toHaveLength(1);
  });
});
