/**
 * Issue 14, point 9d: a user whose subject id equals a client id would get tokens that cannot be
 * told from that client's own client_credentials tokens (same `sub`). Configured users are
 * checked at start-up; a user store plugin's sign-in with such a subject is refused (the same
 * `invalid_grant` as a wrong password) and logged.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { hashPassword } from '../../src/oauth/password-hash.js';
import { hashSecret } from '../../src/sdk/hash.js';
import { validateUserConfig } from '../../src/config/validate.js';
import { firstPartyPlugins, startServer, type TestServer } from '../support/server.js';
import { tokenRequest } from '../fixtures/grant-plugins/world.js';

const userStorePlugins = fileURLToPath(new URL('../fixtures/user-store', import.meta.url));
const mallory = { id: 'm2m', login: 'mallory', password: 'mallory-directory-password', name: 'Mallory' };
const carol = { id: 'dir-0042', login: 'carol', password: 'carol-directory-password', name: 'Carol' };

const clients = [
  { clientId: 'web', clientSecrets: [{ value: hashSecret('web-secret') }], allowedGrantTypes: ['password'], allowedScopes: ['api1.read'] },
  { clientId: 'm2m', clientSecrets: [{ value: hashSecret('m2m-secret') }], allowedGrantTypes: ['client_credentials'], allowedScopes: ['api1.read'] },
];
const resources = { apiScopes: [{ name: 'api1.read' }], apiResources: [{ name: 'api1', scopes: ['api1.read'] }] };

let server: TestServer;
beforeAll(async () => {
  server = await startServer({
    pluginDirs: [firstPartyPlugins, userStorePlugins],
    plugins: { 'directory-users': { people: [mallory, carol] } },
    ...resources,
    clients,
  });
});
afterAll(() => server.close());

const password = (username: string, pw: string) =>
  tokenRequest(server, 'web', { grant_type: 'password', username, password: pw, scope: 'api1.read' });

describe('a user whose subject id is also a client id', () => {
  it('is refused at start-up when configured, naming both fields', async () => {
    const users = [{ subjectId: 'm2m', username: 'mallory', password: await hashPassword('x', { ln: 4, r: 8, p: 1 }) }];
    expect(validateUserConfig({ ...resources, clients, users })).toEqual([
      'users[0].subjectId: "m2m" is also the clientId of clients[1]; this user\'s tokens could not be told from that client\'s own (both have sub "m2m"). Give the user another subjectId',
    ]);
  });

  it('cannot sign in through a user store plugin: invalid_grant, as for a wrong password, and a warning in the log', async () => {
    const res = await password(mallory.login, mallory.password);
    expect({ status: res.status, body: res.body }).toEqual({
      status: 400, body: { error: 'invalid_grant', error_description: 'The username or password is incorrect.' },
    });
    expect(server.logs).toContainEqual(expect.objectContaining({
      level: 40, subject: 'm2m', msg: 'sign-in refused: the user store returned a subject id that is also a client id',
    }));
    expect(server.logText()).not.toContain(mallory.password);
  });

  it('leaves every other user of the plugin alone', async () => {
    expect((await password(carol.login, carol.password)).status).toBe(200);
  });
});
