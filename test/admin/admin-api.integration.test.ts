/**
 * The admin API (issue 39) end to end: the real service with its admin listener on loopback,
 * tokens from its own token endpoint (client credentials), every answer held to the OpenAPI
 * document the listener serves (`admin-client.ts`), and every call audited.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserConfig } from '../../src/config/schema.js';
import { hashSecret } from '../../src/sdk/hash.js';
import { createSignInSessions } from '../../src/sessions/sign-in-sessions.js';
import { dpopKey } from '../support/dpop.js';
import { basic, postForm, startServer, type TestServer } from '../support/server.js';
import { adminClient, type AdminClient } from './admin-client.js';

const m2m = (clientId: string, scopes: string[], extra: Record<string, unknown> = {}) => ({
  clientId, clientSecrets: [{ value: hashSecret(`${clientId}-secret`) }], allowedGrantTypes: ['client_credentials'], allowedScopes: scopes, ...extra,
});

export const adminTestConfig: UserConfig = {
  apiScopes: [{ name: 'admin' }, { name: 'admin.read' }, { name: 'api1.read' }],
  apiResources: [{ name: 'svc-admin', scopes: ['admin', 'admin.read'] }, { name: 'api1', scopes: ['api1.read'] }],
  clients: [
    m2m('ops', ['admin', 'admin.read']),
    m2m('auditor', ['admin.read']),
    m2m('m2m', ['api1.read']),
    m2m('ops-dpop', ['admin'], { requireDPoP: true }),
    m2m('ops-reference', ['admin'], { accessTokenType: 'reference' }),
    { clientId: 'app', clientSecrets: [{ value: hashSecret('app-secret') }], allowedGrantTypes: ['password', 'refresh_token'], allowedScopes: ['api1.read'], allowOfflineAccess: true },
  ],
  admin: { port: 0 },
};

let server: TestServer;
let api: AdminClient;
let ops: string;
let auditor: string;

async function tokenOf(clientId: string, scope?: string, headers: Record<string, string> = {}): Promise<string> {
  const res = await postForm(`${server.url}/connect/token`, { grant_type: 'client_credentials', ...(scope ? { scope } : {}) }, { authorization: basic(clientId, `${clientId}-secret`), ...headers });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.access_token as string;
}

const adminEvents = () => server.logs.filter((l) => (l.event as { type?: string } | undefined)?.type === 'admin.request').map((l) => l.event as Record<string, unknown>);

beforeAll(async () => {
  server = await startServer(adminTestConfig);
  const { url } = await server.app.listenAdmin(0, '127.0.0.1');
  api = await adminClient(url);
  ops = await tokenOf('ops');
  auditor = await tokenOf('auditor');
});
afterAll(async () => {
  await server?.close();
});

describe('the admin listener', () => {
  it('is not the public port: the public port has no admin route', async () => {
    const res = await fetch(`${server.url}/clients`, { headers: { authorization: `Bearer ${ops}` } });
    expect(res.status).toBe(404);
    expect(api.url).not.toBe(server.url);
    // Set up as the guide says: on loopback, with the svc-admin resource, nothing to warn of.
    expect(server.logText()).not.toContain('the admin API listens on');
    expect(server.logText()).not.toContain('no token can call the admin API');
  });

  it('warns at start when no API resource lets a token reach it', async () => {
    const bare = await startServer({ admin: { port: 0 } });
    try {
      await bare.app.listenAdmin(0, '127.0.0.1');
      expect(bare.logText()).toContain('no API resource \\"svc-admin\\" with scope \\"admin\\" or \\"admin.read\\": no token can call the admin API');
    } finally {
      await bare.close();
    }
  });

  it('serves an OpenAPI 3.1 document', () => {
    expect(api.document.openapi).toMatch(/^3\.1\./);
    expect(Object.keys(api.document.paths as object)).toContain('/clients/{clientId}');
    // The document the listener serves is the one in docs/ (`npm run admin-openapi`).
    expect(api.document).toEqual(JSON.parse(readFileSync(new URL('../../docs/admin-api.openapi.json', import.meta.url), 'utf8')));
  });
});

describe('authentication', () => {
  it('refuses a call without a token: 401 with a Bearer challenge', async () => {
    const res = await api.call('GET', '/clients');
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="svc-admin"/);
    expect(res.body).toMatchObject({ status: 401, type: 'tag:svc-token-service,2026:problem:unauthenticated' });
  });

  it('refuses a token that is not valid', async () => {
    const res = await api.call('GET', '/clients', { token: 'not-a-token' });
    expect(res.status).toBe(401);
  });

  it('refuses a token for another API: 401, not addressed to the admin API', async () => {
    const res = await api.call('GET', '/clients', { token: await tokenOf('m2m') });
    expect(res.status).toBe(401);
    expect(res.body.detail).toContain('svc-admin');
  });

  it('lets admin.read read but not change: 403', async () => {
    expect((await api.call('GET', '/clients', { token: auditor })).status).toBe(200);
    const res = await api.call('POST', '/clients', { token: auditor, body: { clientId: 'x', allowedGrantTypes: ['client_credentials'], allowedScopes: ['api1.read'] } });
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toContain('insufficient_scope');
  });

  it('accepts a reference token', async () => {
    expect((await api.call('GET', '/clients', { token: await tokenOf('ops-reference') })).status).toBe(200);
  });

  it('needs the DPoP proof of a DPoP-bound token: refused as Bearer, accepted with its proof', async () => {
    const key = await dpopKey();
    const token = await tokenOf('ops-dpop', undefined, { dpop: key.proof({ htu: `${server.url}/connect/token` }) });
    const asBearer = await api.call('GET', '/clients', { token });
    expect(asBearer.status).toBe(401);
    expect(asBearer.headers.get('www-authenticate')).toMatch(/^DPoP /);
    const withoutProof = await api.call('GET', '/clients', { headers: { authorization: `DPoP ${token}` } });
    expect(withoutProof.status).toBe(401);
    const other = await dpopKey();
    const wrongKey = await api.call('GET', '/clients', { headers: { authorization: `DPoP ${token}`, dpop: other.proof({ htm: 'GET', htu: `${api.url}/clients`, accessToken: token }) } });
    expect(wrongKey.status).toBe(401);
    const ok = await api.call('GET', '/clients', { headers: { authorization: `DPoP ${token}`, dpop: key.proof({ htm: 'GET', htu: `${api.url}/clients`, accessToken: token }) } });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
  });
});

describe('DPoP with nonces (dpop.requireNonce)', () => {
  it('answers a proof without the nonce 401 with a fresh DPoP-Nonce, and the proof with it passes', async () => {
    const nonced = await startServer({ ...adminTestConfig, dpop: { requireNonce: true } });
    try {
      const { url } = await nonced.app.listenAdmin(0, '127.0.0.1');
      const key = await dpopKey();
      const tokenUrl = `${nonced.url}/connect/token`;
      const ask = (nonce?: string) => postForm(tokenUrl, { grant_type: 'client_credentials' }, {
        authorization: basic('ops-dpop', 'ops-dpop-secret'), dpop: key.proof({ htu: tokenUrl, ...(nonce ? { nonce } : {}) }),
      });
      const first = await ask();
      const issued = await ask(first.headers.get('dpop-nonce')!);
      expect(issued.status, JSON.stringify(issued.body)).toBe(200);
      const token = issued.body.access_token as string;
      const call = (nonce?: string) => fetch(`${url}/clients`, { headers: { authorization: `DPoP ${token}`, dpop: key.proof({ htm: 'GET', htu: `${url}/clients`, accessToken: token, ...(nonce ? { nonce } : {}) }) } });
      const withoutNonce = await call();
      expect(withoutNonce.status).toBe(401);
      const nonce = withoutNonce.headers.get('dpop-nonce');
      expect(nonce).toMatch(/^[\w.-]+$/);
      expect((await call(nonce!)).status).toBe(200);
    } finally {
      await nonced.close();
    }
  });
});

describe('clients', () => {
  const definition = { allowedGrantTypes: ['client_credentials'], allowedScopes: ['api1.read'] };

  it('creates a client whose generated secret is answered once and authenticates at once', async () => {
    const created = await api.call('POST', '/clients', { token: ops, body: { clientId: 'billing', clientName: 'Billing', ...definition } });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe('/clients/billing');
    expect(created.body.client).toMatchObject({ clientId: 'billing', clientName: 'Billing', disabled: false });
    const secret = created.body.secret.value as string;
    expect(secret).toMatch(/^[\w-]{43}$/);
    const token = await postForm(`${server.url}/connect/token`, { grant_type: 'client_credentials' }, { authorization: basic('billing', secret) });
    expect(token.status).toBe(200);
    const read = await api.call('GET', '/clients/billing', { token: auditor });
    expect(read.status).toBe(200);
    expect(JSON.stringify(read.body)).not.toContain(secret);
    expect(read.body.secrets).toHaveLength(1);
    expect(read.headers.get('etag')).toBe(created.headers.get('etag'));
  });

  it('lists clients a page at a time with an opaque cursor', async () => {
    for (const id of ['page-a', 'page-b', 'page-c']) {
      expect((await api.call('POST', '/clients', { token: ops, body: { clientId: id, ...definition } })).status).toBe(201);
    }
    const ids: string[] = [];
    let cursor: string | undefined;
    do {
      const res = await api.call('GET', `/clients?limit=2${cursor ? `&cursor=${cursor}` : ''}`, { token: auditor });
      expect(res.status).toBe(200);
      expect(res.body.items.length).toBeLessThanOrEqual(2);
      ids.push(...res.body.items.map((c: { clientId: string }) => c.clientId));
      cursor = res.body.next;
    } while (cursor);
    expect(ids).toEqual([...ids].sort());
    expect(ids).toEqual(expect.arrayContaining(['page-a', 'page-b', 'page-c']));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('replaces a client with If-Match; a stale ETag is 412, a missing one 428', async () => {
    await api.call('POST', '/clients', { token: ops, body: { clientId: 'editable', ...definition } });
    const read = await api.call('GET', '/clients/editable', { token: ops });
    const etag = read.headers.get('etag')!;
    const missing = await api.call('PUT', '/clients/editable', { token: ops, body: { ...definition, clientName: 'A' } });
    expect(missing.status).toBe(428);
    const first = await api.call('PUT', '/clients/editable', { token: ops, ifMatch: etag, body: { ...definition, clientName: 'A' } });
    expect(first.status).toBe(200);
    expect(first.body.clientName).toBe('A');
    expect(first.headers.get('etag')).not.toBe(etag);
    // A second operator still holding the first read:
    const second = await api.call('PUT', '/clients/editable', { token: ops, ifMatch: etag, body: { ...definition, clientName: 'B' } });
    expect(second.status).toBe(412);
    expect(second.body).toMatchObject({ status: 412, type: 'tag:svc-token-service,2026:problem:stale-etag' });
    expect((await api.call('GET', '/clients/editable', { token: ops })).body.clientName).toBe('A');
  });

  it('disables a client through its definition: it no longer gets tokens', async () => {
    const created = await api.call('POST', '/clients', { token: ops, body: { clientId: 'to-disable', ...definition } });
    const res = await api.call('PUT', '/clients/to-disable', { token: ops, ifMatch: created.headers.get('etag')!, body: { ...definition, disabled: true } });
    expect(res.status).toBe(200);
    expect(res.body.disabled).toBe(true);
    const token = await postForm(`${server.url}/connect/token`, { grant_type: 'client_credentials' }, { authorization: basic('to-disable', created.body.secret.value) });
    expect(token.status).toBe(401);
  });

  it('deletes a client with If-Match', async () => {
    const created = await api.call('POST', '/clients', { token: ops, body: { clientId: 'doomed', ...definition } });
    expect((await api.call('DELETE', '/clients/doomed', { token: ops })).status).toBe(428);
    expect((await api.call('DELETE', '/clients/doomed', { token: ops, ifMatch: '"stale"' })).status).toBe(412);
    expect((await api.call('DELETE', '/clients/doomed', { token: ops, ifMatch: created.headers.get('etag')! })).status).toBe(204);
    expect((await api.call('GET', '/clients/doomed', { token: ops })).status).toBe(404);
  });

  it('adds and removes secrets: the new value once, removal with the client\'s ETag', async () => {
    await api.call('POST', '/clients', { token: ops, body: { clientId: 'rotating', ...definition } });
    const added = await api.call('POST', '/clients/rotating/secrets', { token: ops, body: { description: 'second', expiresIn: 3600 } });
    expect(added.status).toBe(201);
    expect(added.body.value).toMatch(/^[\w-]{43}$/);
    expect((await postForm(`${server.url}/connect/token`, { grant_type: 'client_credentials' }, { authorization: basic('rotating', added.body.value) })).status).toBe(200);
    const read = await api.call('GET', '/clients/rotating', { token: ops });
    expect(read.body.secrets).toHaveLength(2);
    expect((await api.call('DELETE', `/clients/rotating/secrets/${added.body.id}`, { token: ops })).status).toBe(428);
    expect((await api.call('DELETE', `/clients/rotating/secrets/${added.body.id}`, { token: ops, ifMatch: read.headers.get('etag')! })).status).toBe(204);
    expect((await postForm(`${server.url}/connect/token`, { grant_type: 'client_credentials' }, { authorization: basic('rotating', added.body.value) })).status).toBe(401);
    expect((await api.call('DELETE', '/clients/rotating/secrets/nope', { token: ops, ifMatch: '*' })).status).toBe(404);
    expect((await api.call('POST', '/clients/rotating/secrets', { token: ops, body: { value: 'chosen' } })).status).toBe(400);
  });

  it('refuses what the document forbids: an unknown field, a wrong type, an unknown query parameter, a non-JSON body', async () => {
    const unknown = await api.call('POST', '/clients', { token: ops, body: { clientId: 'bad', ...definition, colour: 'red' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors).toEqual([{ path: 'body.colour', message: 'unknown field' }]);
    const wrongType = await api.call('POST', '/clients', { token: ops, body: { clientId: 'bad', ...definition, accessTokenLifetime: 'long' } });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.errors[0].path).toBe('body.accessTokenLifetime');
    expect((await api.call('GET', '/clients?colour=red', { token: ops })).status).toBe(400);
    expect((await api.call('GET', '/clients?limit=0', { token: ops })).status).toBe(400);
    expect((await api.call('POST', '/clients', { token: ops, rawBody: 'clientId=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } })).status).toBe(415);
    expect((await api.call('POST', '/clients', { token: ops, rawBody: '{', headers: { 'content-type': 'application/json' } })).status).toBe(400);
    expect((await api.call('PATCH', '/clients/bad', { token: ops, body: {} })).status).toBe(405);
    const unknownMethod = await fetch(`${api.url}/clients`, { method: 'PROPFIND', headers: { authorization: `Bearer ${ops}` } });
    expect(unknownMethod.status).toBe(501);
    expect(unknownMethod.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const tooLarge = await api.call('POST', '/clients', { token: ops, body: { clientId: 'big', ...definition, clientName: 'x'.repeat(70_000) } });
    expect(tooLarge.status).toBe(413);
    const unreadable = await api.call('POST', '/clients', { token: ops, rawBody: 'not gzip', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } });
    expect(unreadable.status).toBe(400);
    const bodyWhereNone = await api.call('DELETE', '/clients/bad', { token: ops, ifMatch: '*', rawBody: '{}', headers: { 'content-type': 'application/json' } });
    expect(bodyWhereNone.status).toBe(400);
    expect(bodyWhereNone.body.detail).toBe('DELETE /clients/{clientId} takes no body.');
  });

  it('refuses a client the service would refuse (unknown scope) and a duplicate or config-defined id', async () => {
    const scope = await api.call('POST', '/clients', { token: ops, body: { clientId: 'bad-scope', allowedGrantTypes: ['client_credentials'], allowedScopes: ['nope'] } });
    expect(scope.status).toBe(400);
    expect(scope.body.detail).toContain('nope');
    expect((await api.call('POST', '/clients', { token: ops, body: { clientId: 'billing', ...definition } })).status).toBe(409);
    expect((await api.call('POST', '/clients', { token: ops, body: { clientId: 'ops', ...definition } })).status).toBe(409);
    const configs = await api.call('GET', '/clients/ops', { token: ops });
    expect(configs.status).toBe(404);
    expect(configs.body.detail).toContain('config file');
  });
});

describe('API resources', () => {
  it('creates, reads, replaces and deletes an API resource; its secret authenticates at introspection', async () => {
    const created = await api.call('POST', '/api-resources', { token: ops, body: { name: 'orders', scopes: ['api1.read'] } });
    expect(created.status).toBe(201);
    expect(created.body.apiResource).toMatchObject({ name: 'orders', scopes: ['api1.read'] });
    const secret = created.body.secret.value as string;
    const introspected = await postForm(`${server.url}/connect/introspect`, { token: ops }, { authorization: basic('orders', secret) });
    expect(introspected.status).toBe(200);
    const added = await api.call('POST', '/api-resources/orders/secrets', { token: ops, body: { expireOthersIn: 0 } });
    expect(added.status).toBe(201);
    expect((await postForm(`${server.url}/connect/introspect`, { token: ops }, { authorization: basic('orders', added.body.value) })).status).toBe(200);
    const withTwo = await api.call('GET', '/api-resources/orders', { token: ops });
    expect((await api.call('DELETE', `/api-resources/orders/secrets/${created.body.secret.id}`, { token: ops, ifMatch: withTwo.headers.get('etag')! })).status).toBe(204);
    const stale = withTwo.headers.get('etag')!;
    const current = (await api.call('GET', '/api-resources/orders', { token: ops })).headers.get('etag')!;
    expect((await api.call('PUT', '/api-resources/orders', { token: ops, ifMatch: stale, body: { scopes: ['api1.read'] } })).status).toBe(412);
    const replaced = await api.call('PUT', '/api-resources/orders', { token: ops, ifMatch: current, body: { scopes: ['api1.read'], introspectionSigningAlgorithm: 'RS256' } });
    expect(replaced.status).toBe(200);
    expect((await api.call('DELETE', '/api-resources/orders', { token: ops, ifMatch: stale })).status).toBe(412);
    expect((await api.call('DELETE', '/api-resources/orders', { token: ops, ifMatch: replaced.headers.get('etag')! })).status).toBe(204);
    expect((await api.call('GET', '/api-resources/orders', { token: auditor })).status).toBe(404);
    expect((await api.call('GET', '/api-resources', { token: auditor })).status).toBe(200);
  });

  it('refuses an API resource with a scope the config does not define', async () => {
    const res = await api.call('POST', '/api-resources', { token: ops, body: { name: 'x', scopes: ['nope'] } });
    expect(res.status).toBe(400);
    expect((await api.call('POST', '/api-resources', { token: ops, body: { name: 'x' } })).status).toBe(400);
  });
});

describe('users', () => {
  const passwordGrant = (username: string, password: string, scope = 'api1.read') =>
    postForm(`${server.url}/connect/token`, { grant_type: 'password', username, password, scope }, { authorization: basic('app', 'app-secret') });

  it('creates a user who signs in, changes them with If-Match, sets a password, disables and enables them', async () => {
    const created = await api.call('POST', '/users', { token: ops, body: { username: 'erin', password: 'erin-password-1', email: 'erin@example.com', claims: { name: 'Erin' } } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ username: 'erin', hasPassword: true, disabled: false, claims: { name: 'Erin' } });
    expect(JSON.stringify(created.body)).not.toContain('erin-password-1');
    const subject = created.body.subjectId as string;
    expect((await passwordGrant('erin', 'erin-password-1')).status).toBe(200);

    const read = await api.call('GET', `/users/${subject}`, { token: auditor });
    expect(read.status).toBe(200);
    const changed = await api.call('PATCH', `/users/${subject}`, { token: ops, ifMatch: read.headers.get('etag')!, body: { email: null, claims: { name: 'Erin E.' } } });
    expect(changed.status).toBe(200);
    expect(changed.body.email).toBeUndefined();
    expect((await api.call('PATCH', `/users/${subject}`, { token: ops, ifMatch: read.headers.get('etag')!, body: { emailVerified: true } })).status).toBe(412);
    expect((await api.call('PATCH', `/users/${subject}`, { token: ops, body: { emailVerified: true } })).status).toBe(428);

    const weak = await api.call('PUT', `/users/${subject}/password`, { token: ops, ifMatch: changed.headers.get('etag')!, body: { password: 'short' } });
    expect(weak.status).toBe(400);
    const password = await api.call('PUT', `/users/${subject}/password`, { token: ops, ifMatch: changed.headers.get('etag')!, body: { password: 'erin-password-2' } });
    expect(password.status).toBe(200);
    expect((await passwordGrant('erin', 'erin-password-1')).status).toBe(400);
    expect((await passwordGrant('erin', 'erin-password-2')).status).toBe(200);

    const disabled = await api.call('PATCH', `/users/${subject}`, { token: ops, ifMatch: password.headers.get('etag')!, body: { disabled: true } });
    expect(disabled.status).toBe(200);
    expect(disabled.body.disabled).toBe(true);
    expect((await passwordGrant('erin', 'erin-password-2')).status).toBe(400);
    const enabled = await api.call('PATCH', `/users/${subject}`, { token: ops, ifMatch: disabled.headers.get('etag')!, body: { disabled: false } });
    expect(enabled.status).toBe(200);
    expect((await passwordGrant('erin', 'erin-password-2')).status).toBe(200);

    const listed = await api.call('GET', '/users?limit=1', { token: auditor });
    expect(listed.status).toBe(200);
    expect(listed.body.items).toHaveLength(1);
  });

  it('refuses a duplicate username (409), a bad body (400), an unknown user (404), and deletes with If-Match', async () => {
    const created = await api.call('POST', '/users', { token: ops, body: { username: 'frank' } });
    expect(created.status).toBe(201);
    expect(created.body.hasPassword).toBe(false);
    expect((await api.call('POST', '/users', { token: ops, body: { username: 'FRANK' } })).status).toBe(409);
    expect((await api.call('POST', '/users', { token: ops, body: { username: 'g', password: 1 } })).status).toBe(400);
    expect((await api.call('GET', '/users/no-such-subject', { token: ops })).status).toBe(404);
    expect((await api.call('DELETE', `/users/${created.body.subjectId}`, { token: ops })).status).toBe(428);
    const removed = await api.call('DELETE', `/users/${created.body.subjectId}`, { token: ops, ifMatch: created.headers.get('etag')! });
    expect(removed.status).toBe(200);
    expect((await api.call('GET', `/users/${created.body.subjectId}`, { token: ops })).status).toBe(404);
  });
});

describe('grants and sessions', () => {
  async function userWithRefreshToken(username: string): Promise<{ subject: string; refreshToken: string }> {
    const created = await api.call('POST', '/users', { token: ops, body: { username, password: `${username}-password-1` } });
    const res = await postForm(`${server.url}/connect/token`, { grant_type: 'password', username, password: `${username}-password-1`, scope: 'api1.read offline_access' }, { authorization: basic('app', 'app-secret') });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return { subject: created.body.subjectId as string, refreshToken: res.body.refresh_token as string };
  }
  const refresh = (refreshToken: string) =>
    postForm(`${server.url}/connect/token`, { grant_type: 'refresh_token', refresh_token: refreshToken }, { authorization: basic('app', 'app-secret') });

  it('lists a user\'s grants and revokes one: its refresh token stops working', async () => {
    const { subject, refreshToken } = await userWithRefreshToken('gina');
    const listed = await api.call('GET', `/grants?subjectId=${subject}`, { token: auditor });
    expect(listed.status).toBe(200);
    expect(listed.body.items).toEqual([expect.objectContaining({ clientId: 'app', subjectId: subject, scopes: ['api1.read', 'offline_access'] })]);
    expect(JSON.stringify(listed.body)).not.toContain(refreshToken);
    const byClient = await api.call('GET', '/grants?clientId=app', { token: auditor });
    expect(byClient.body.items.map((g: { id: string }) => g.id)).toContain(listed.body.items[0].id);
    const revoked = await api.call('DELETE', `/grants/${listed.body.items[0].id}`, { token: ops });
    expect(revoked.status).toBe(200);
    expect(revoked.body.revoked).toBeGreaterThanOrEqual(2);
    expect((await refresh(refreshToken)).status).toBe(400);
    expect((await api.call('DELETE', `/grants/${listed.body.items[0].id}`, { token: ops })).status).toBe(404);
    expect((await api.call('GET', '/grants', { token: auditor })).status).toBe(400);
  });

  it('revokes every grant of a user, and every grant of a client', async () => {
    const first = await userWithRefreshToken('hank');
    expect((await api.call('POST', '/grants/revocation', { token: auditor, body: { subjectId: first.subject } })).status).toBe(403);
    const all = await api.call('POST', '/grants/revocation', { token: ops, body: { subjectId: first.subject } });
    expect(all.status).toBe(200);
    expect(all.body.revoked).toBeGreaterThanOrEqual(2);
    expect((await refresh(first.refreshToken)).status).toBe(400);
    const second = await userWithRefreshToken('ivy');
    const ofClient = await api.call('POST', '/grants/revocation', { token: ops, body: { clientId: 'app' } });
    expect(ofClient.status).toBe(200);
    expect((await refresh(second.refreshToken)).status).toBe(400);
    expect((await api.call('POST', '/grants/revocation', { token: ops, body: {} })).status).toBe(400);
  });

  it('lists a user\'s sign-in sessions and ends one', async () => {
    const created = await api.call('POST', '/users', { token: ops, body: { username: 'jo' } });
    const subject = created.body.subjectId as string;
    const sessions = createSignInSessions({ store: server.app.store, clock: { now: () => Date.now() }, lifetimeSeconds: 3600 });
    const started = await sessions.start('browser-cookie-id-1', subject);
    const listed = await api.call('GET', `/users/${subject}/sessions`, { token: auditor });
    expect(listed.status).toBe(200);
    expect(listed.body.items).toEqual([expect.objectContaining({ subjectId: subject, sid: started.sid })]);
    expect(JSON.stringify(listed.body)).not.toContain('browser-cookie-id-1');
    const ended = await api.call('DELETE', `/users/${subject}/sessions/${listed.body.items[0].id}`, { token: ops });
    expect(ended.status).toBe(200);
    expect(await sessions.get('browser-cookie-id-1')).toBeUndefined();
    expect((await api.call('DELETE', `/users/${subject}/sessions/${listed.body.items[0].id}`, { token: ops })).status).toBe(404);
  });

  it('lists the sessions in which a client received a code, of every user or of one, a page at a time', async () => {
    const kim = (await api.call('POST', '/users', { token: ops, body: { username: 'kim' } })).body.subjectId as string;
    const lee = (await api.call('POST', '/users', { token: ops, body: { username: 'lee' } })).body.subjectId as string;
    const sessions = createSignInSessions({ store: server.app.store, clock: { now: () => Date.now() }, lifetimeSeconds: 3600 });
    const kimAtDesk = await sessions.start('browser-kim-desk', kim);
    const kimAtPhone = await sessions.start('browser-kim-phone', kim);
    const leeAtDesk = await sessions.start('browser-lee-desk', lee);
    await sessions.codeIssued('browser-kim-desk', 'portal', 'family-kim-desk-1');
    await sessions.codeIssued('browser-kim-desk', 'portal', 'family-kim-desk-2');
    await sessions.codeIssued('browser-kim-desk', 'wiki', 'family-kim-desk-3');
    await sessions.codeIssued('browser-kim-phone', 'wiki', 'family-kim-phone-1');
    await sessions.codeIssued('browser-lee-desk', 'portal', 'family-lee-desk-1');
    const sids = async (query: string) => {
      const listed = await api.call('GET', `/sessions?${query}`, { token: auditor });
      expect(listed.status, JSON.stringify(listed.body)).toBe(200);
      return listed.body as { items: Array<{ sid: string; subjectId: string; clients: string[] }>; next?: string };
    };
    const portal = await sids('clientId=portal');
    expect(portal.items.map((i) => i.sid).sort()).toEqual([kimAtDesk.sid, leeAtDesk.sid].sort());
    expect(portal.items.find((i) => i.sid === kimAtDesk.sid)).toMatchObject({ subjectId: kim, clients: ['portal', 'wiki'] });
    expect(JSON.stringify(portal)).not.toContain('browser-kim-desk');
    expect((await sids('clientId=wiki')).items.map((i) => i.sid).sort()).toEqual([kimAtDesk.sid, kimAtPhone.sid].sort());
    expect((await sids(`clientId=portal&subjectId=${lee}`)).items.map((i) => i.sid)).toEqual([leeAtDesk.sid]);
    // A page at a time: one session, then the other, then no `next`.
    const first = await sids('clientId=portal&limit=1');
    expect(first.items).toHaveLength(1);
    const second = await sids(`clientId=portal&limit=1&cursor=${first.next!}`);
    expect(second.next).toBeUndefined();
    expect([first.items[0]!.sid, second.items[0]!.sid].sort()).toEqual([kimAtDesk.sid, leeAtDesk.sid].sort());
    // Signed out: the session is no longer the client's.
    await sessions.signOut('browser-lee-desk');
    expect((await sids('clientId=portal')).items.map((i) => i.sid)).toEqual([kimAtDesk.sid]);
    expect((await api.call('GET', '/sessions', { token: auditor })).status).toBe(400);
  });
});

describe('signing keys', () => {
  it('lists the keys, rotates now (a successor published before it signs) and retires one with If-Match', async () => {
    const before = await api.call('GET', '/signing-keys', { token: auditor });
    expect(before.status).toBe(200);
    const active = before.body.items.filter((k: { state: string }) => k.state === 'active');
    expect(active.length).toBeGreaterThan(0);
    expect(JSON.stringify(before.body)).not.toMatch(/"d":/);

    const rotated = await api.call('POST', '/signing-keys/rotation', { token: ops, body: {} });
    expect(rotated.status).toBe(201);
    expect(rotated.body.items.length).toBe(new Set(before.body.items.map((k: { alg: string }) => k.alg)).size);
    expect(rotated.body.items.every((k: { state: string }) => k.state === 'pending')).toBe(true);
    const jwks = await (await fetch(`${server.url}/.well-known/openid-configuration/jwks`)).json() as { keys: Array<{ kid: string }> };
    for (const key of rotated.body.items) expect(jwks.keys.map((k) => k.kid)).toContain(key.kid);
    expect((await api.call('POST', '/signing-keys/rotation', { token: ops, body: { alg: 'HS256' } })).status).toBe(409);

    const pending = rotated.body.items[0];
    const read = await api.call('GET', `/signing-keys/${pending.kid}`, { token: auditor });
    expect(read.status).toBe(200);
    expect((await api.call('DELETE', `/signing-keys/${pending.kid}`, { token: ops })).status).toBe(428);
    expect((await api.call('DELETE', `/signing-keys/${pending.kid}`, { token: ops, ifMatch: '"other"' })).status).toBe(412);
    const retired = await api.call('DELETE', `/signing-keys/${pending.kid}`, { token: ops, ifMatch: read.headers.get('etag')! });
    expect(retired.status).toBe(200);
    expect(retired.body.state).toBe('retired');
    const after = await (await fetch(`${server.url}/.well-known/openid-configuration/jwks`)).json() as { keys: Array<{ kid: string }> };
    expect(after.keys.map((k) => k.kid)).not.toContain(pending.kid);
    expect((await api.call('GET', '/signing-keys/no-such-kid', { token: auditor })).status).toBe(404);
  });
});

describe('registration policy', () => {
  it('reads the config\'s registration policy, every default filled in', async () => {
    const res = await api.call('GET', '/registration-policy', { token: auditor });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ enabled: false, redirectUris: 'https' });
    expect((await api.call('PUT', '/registration-policy', { token: ops, body: {} })).status).toBe(405);
  });
});

describe('audit', () => {
  it('raises an admin.request event for every call, with the operator, never a body', async () => {
    const marker = `audit-${Date.now()}`;
    await api.call('POST', '/users', { token: ops, body: { username: marker, password: 'audit-password-secret' } });
    await api.call('GET', '/clients/none');
    // Events reach the log sink asynchronously with the answer.
    await new Promise((r) => setTimeout(r, 50));
    const events = adminEvents();
    expect(events).toContainEqual(expect.objectContaining({ type: 'admin.request', clientId: 'ops', method: 'POST', path: '/users', status: 201 }));
    expect(events).toContainEqual(expect.objectContaining({ type: 'admin.request', method: 'GET', path: '/clients/none', status: 401 }));
    expect(events.find((e) => e.path === '/clients/none')?.clientId).toBeUndefined();
    expect(server.logText()).not.toContain('audit-password-secret');
    expect(JSON.stringify(events)).not.toContain(marker.replace('audit-', 'x'));
  });
});

/** A valid body for each operation that takes one (the sweep below checks the list is whole). */
const validBodies: Record<string, unknown> = {
  'create-client': { clientId: 'sweep-client', allowedGrantTypes: ['client_credentials'], allowedScopes: ['api1.read'] },
  'replace-client': { allowedGrantTypes: ['client_credentials'], allowedScopes: ['api1.read'] },
  'add-client-secret': {},
  'create-api-resource': { name: 'sweep-api', scopes: ['api1.read'] },
  'replace-api-resource': { scopes: ['api1.read'] },
  'add-api-resource-secret': {},
  'create-user': { username: 'sweep-user' },
  'change-user': { emailVerified: true },
  'set-user-password': { password: 'sweep-password-1' },
  'rotate-signing-keys': {},
  'revoke-grants': { subjectId: 'sweep-nobody' },
};
/** Lists keyed by a user: an unknown subject has no sessions (200, empty), which is no error. */
const noNotFound = new Set(['list-user-sessions']);

describe('every operation refuses what it must', () => {
  type Op = { operationId: string; 'x-svc-access': string; requestBody?: unknown; parameters?: Array<{ in?: string; name?: string; $ref?: string }> };
  const operations = () => Object.entries(api.document.paths as Record<string, Record<string, Op>>)
    .flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ method: method.toUpperCase(), path, op })));
  const concrete = (path: string) => path.replace(/\{\w+\}/g, 'sweep-none');

  it('401 without a token, 403 for a change with admin.read, 400 for a body field the document does not have', async () => {
    for (const { method, path, op } of operations()) {
      const url = concrete(path);
      const body = op.requestBody ? validBodies[op.operationId] : undefined;
      if (op.requestBody) expect(body, `a valid body for ${op.operationId}`).toBeDefined();
      expect((await api.call(method, url, { body })).status, `${method} ${path} without a token`).toBe(401);
      if (op['x-svc-access'] === 'write') expect((await api.call(method, url, { token: auditor, body, ifMatch: '*' })).status, `${method} ${path} with admin.read`).toBe(403);
      if (op.requestBody) {
        const res = await api.call(method, url, { token: ops, ifMatch: '*', body: { ...(body as object), notInTheDocument: 1 } });
        expect(res.status, `${method} ${path} with an unknown field`).toBe(400);
      }
    }
  });

  it('428 without If-Match wherever the document asks for it, 404 for what does not exist', async () => {
    for (const { method, path, op } of operations()) {
      const url = concrete(path);
      const body = op.requestBody ? validBodies[op.operationId] : undefined;
      const ifMatch = (op.parameters ?? []).some((p) => p.$ref === '#/components/parameters/IfMatch');
      if (ifMatch) expect((await api.call(method, url, { token: ops, body })).status, `${method} ${path} without If-Match`).toBe(428);
      const hasPathParameters = (op.parameters ?? []).some((p) => p.in === 'path');
      if (hasPathParameters && !noNotFound.has(op.operationId)) {
        expect((await api.call(method, url, { token: ops, body, ifMatch: '*' })).status, `${method} ${path} for nothing`).toBe(404);
      }
    }
  });
});

describe('the document and the handlers agree', () => {
  it('every operation in the document was reached by these tests', () => {
    const operations = Object.entries(api.document.paths as Record<string, Record<string, unknown>>)
      .flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`));
    const reached = new Set([...api.seen].map((s) => s.split(' ').slice(0, 2).join(' ')));
    expect(operations.filter((o) => !reached.has(o))).toEqual([]);
  });
});
