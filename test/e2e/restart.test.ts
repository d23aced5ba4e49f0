/**
 * The SQLite-backed server keeps what it issued across a restart: reference tokens, refresh
 * tokens and its signing keys live in the file, not the process.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import type { UserConfig } from '../../src/config/schema.js';
import { hashPassword } from '../../src/oauth/password-hash.js';
import { hashSecret } from '../../src/sdk/hash.js';
import { basic, firstPartyPlugins, freePort, postForm, startServer, type TestServer } from '../support/server.js';

let dir: string;
let config: UserConfig;
let server: TestServer | undefined;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-restart-'));
  config = {
    // The issuer is configured, as in a deployment, so it stays the same when the port changes.
    issuer: 'https://svc.restart.test',
    store: 'sqlite:./data/svc.db',
    pluginDirs: [firstPartyPlugins],
    apiScopes: [{ name: 'api1.read' }],
    apiResources: [{ name: 'api1', scopes: ['api1.read'], secrets: [{ value: hashSecret('api1-secret') }] }],
    users: [{ subjectId: 'alice-1', username: 'alice', password: await hashPassword('alice-password', { ln: 10, r: 8, p: 1 }) }],
    clients: [
      {
        clientId: 'ref-app',
        clientSecrets: [{ value: hashSecret('ref-app-secret') }],
        allowedGrantTypes: ['password', 'refresh_token'],
        allowedScopes: ['api1.read'],
        accessTokenType: 'reference',
        allowOfflineAccess: true,
      },
      {
        clientId: 'jwt-app',
        clientSecrets: [{ value: hashSecret('jwt-app-secret') }],
        allowedGrantTypes: ['client_credentials'],
        allowedScopes: ['api1.read'],
      },
    ],
  };
});

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

// A new port for each run, so no kept-alive connection to the old process is reused.
const start = async () => startServer({ ...config, port: await freePort() }, { configDir: dir });
const jwks = async (s: TestServer) =>
  (await (await fetch(`${s.url}/.well-known/openid-configuration/jwks`)).json()) as JSONWebKeySet;
const kids = (set: JSONWebKeySet) => set.keys.map((k) => k.kid).sort();
const introspect = (s: TestServer, token: string) =>
  postForm(`${s.url}/connect/introspect`, { token }, { authorization: basic('api1', 'api1-secret') });

describe('a restart of the SQLite-backed server', () => {
  it('keeps reference tokens, refresh tokens and signing keys', async () => {
    server = await start();
    expect(existsSync(join(dir, 'data', 'svc.db'))).toBe(true);
    const issued = await postForm(
      `${server.url}/connect/token`,
      { grant_type: 'password', username: 'alice', password: 'alice-password', scope: 'api1.read offline_access' },
      { authorization: basic('ref-app', 'ref-app-secret') },
    );
    expect(issued.status, JSON.stringify(issued.body)).toBe(200);
    const reference = issued.body.access_token as string;
    const refreshToken = issued.body.refresh_token as string;
    const jwt = (await postForm(`${server.url}/connect/token`, { grant_type: 'client_credentials' }, {
      authorization: basic('jwt-app', 'jwt-app-secret'),
    })).body.access_token as string;
    const before = await jwks(server);
    expect(before.keys.length).toBeGreaterThanOrEqual(2);
    const issuer = 'https://svc.restart.test';

    await server.close();
    server = undefined;
    server = await start();

    const after = await jwks(server);
    expect(kids(after)).toEqual(kids(before));
    expect(after).toEqual(before);

    const res = await introspect(server, reference);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ active: true, sub: 'alice-1', client_id: 'ref-app', scope: 'api1.read' });

    await expect(jwtVerify(jwt, createLocalJWKSet(after), { issuer, typ: 'at+jwt' })).resolves.toBeTruthy();
    expect((await introspect(server, jwt)).body.active).toBe(true);

    const refreshed = await postForm(`${server.url}/connect/token`, { grant_type: 'refresh_token', refresh_token: refreshToken }, {
      authorization: basic('ref-app', 'ref-app-secret'),
    });
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
  });
});
