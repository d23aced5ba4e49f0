/**
 * POST /connect/revocation (RFC 7009) over HTTP: a client revokes its own reference access
 * tokens and refresh tokens (a refresh token with its whole family); nobody else's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import type { ClientConfig, UserConfig } from '../../src/config/schema.js';
import { hashPassword } from '../../src/oauth/password-hash.js';
import { hashSecret } from '../../src/sdk/hash.js';
import { basic, postForm, startServer, type TestServer } from '../support/server.js';

let s: TestServer;
let revocation: string;

beforeAll(async () => {
  const password = await hashPassword('alice-password', { ln: 10, r: 8, p: 1 });
  const config: UserConfig = {
    apiScopes: [{ name: 'api1.read' }],
    apiResources: [{ name: 'api1', scopes: ['api1.read'], secrets: [{ value: hashSecret('api1-secret') }] }],
    users: [{ subjectId: 'alice-1', username: 'alice', password }],
    clients: [client('app', 'reference'), client('other', 'reference'), client('jwt-app', 'jwt')],
  };
  s = await startServer(config);
  revocation = `${s.url}/connect/revocation`;
});

afterAll(() => s?.close());

function client(clientId: string, accessTokenType: 'jwt' | 'reference'): ClientConfig {
  return {
    clientId,
    clientSecrets: [{ value: hashSecret(`${clientId}-secret`) }],
    allowedGrantTypes: ['password', 'refresh_token'],
    allowedScopes: ['api1.read'],
    allowOfflineAccess: true,
    accessTokenType,
  };
}

const as = (clientId: string) => ({ authorization: basic(clientId, `${clientId}-secret`) });

async function tokens(clientId: string): Promise<{ access: string; refresh: string }> {
  const res = await postForm(
    `${s.url}/connect/token`,
    { grant_type: 'password', username: 'alice', password: 'alice-password', scope: 'api1.read offline_access' },
    as(clientId),
  );
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.refresh_token).toEqual(expect.any(String));
  return { access: res.body.access_token as string, refresh: res.body.refresh_token as string };
}

const refresh = (clientId: string, refreshToken: string) =>
  postForm(`${s.url}/connect/token`, { grant_type: 'refresh_token', refresh_token: refreshToken }, as(clientId));

async function isActive(token: string): Promise<boolean> {
  const res = await postForm(`${s.url}/connect/introspect`, { token }, { authorization: basic('api1', 'api1-secret') });
  expect(res.status).toBe(200);
  return res.body.active as boolean;
}

function expectRevocationOk(res: { status: number; headers: Headers; body: Record<string, unknown> }): void {
  expect(res.status).toBe(200);
  expect(res.body).toEqual({});
  expect(res.headers.get('cache-control')).toBe('no-store');
}

describe('a client revoking its own tokens', () => {
  it('revokes a reference access token, which then introspects inactive', async () => {
    const { access } = await tokens('app');
    expect(await isActive(access)).toBe(true);

    expectRevocationOk(await postForm(revocation, { token: access, token_type_hint: 'access_token' }, as('app')));

    expect(await isActive(access)).toBe(false);
  });

  it('revokes a reference access token sent with credentials in the body and no hint', async () => {
    const { access } = await tokens('app');
    expectRevocationOk(await postForm(revocation, { token: access, client_id: 'app', client_secret: 'app-secret' }));
    expect(await isActive(access)).toBe(false);
  });

  it('revokes a refresh token, which can no longer be used', async () => {
    const { refresh: rt } = await tokens('app');
    expectRevocationOk(await postForm(revocation, { token: rt, token_type_hint: 'refresh_token' }, as('app')));
    const res = await refresh('app', rt);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_grant');
  });

  it('revokes the whole refresh token family when any member is revoked', async () => {
    const { refresh: first } = await tokens('app');
    const rotated = await refresh('app', first);
    expect(rotated.status).toBe(200);
    const second = rotated.body.refresh_token as string;
    expect(second).not.toBe(first);

    // The revoked token is the spent one; its live successor must die with it.
    expectRevocationOk(await postForm(revocation, { token: first }, as('app')));

    const res = await refresh('app', second);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_grant');
  });

  it('leaves other families of the same user and client alone', async () => {
    const a = await tokens('app');
    const b = await tokens('app');
    expectRevocationOk(await postForm(revocation, { token: a.refresh }, as('app')));
    expect((await refresh('app', b.refresh)).status).toBe(200);
  });
});

describe('tokens a client may not revoke', () => {
  it('answers 200 for an unknown token', async () => {
    expectRevocationOk(await postForm(revocation, { token: randomBytes(32).toString('base64url') }, as('app')));
    expectRevocationOk(await postForm(revocation, { token: 'not a token at all' }, as('app')));
  });

  it('answers 200 for another client’s tokens without revoking them', async () => {
    const theirs = await tokens('other');

    expectRevocationOk(await postForm(revocation, { token: theirs.access }, as('app')));
    expectRevocationOk(await postForm(revocation, { token: theirs.refresh }, as('app')));

    expect(await isActive(theirs.access)).toBe(true);
    expect((await refresh('other', theirs.refresh)).status).toBe(200);
  });

  it('refuses a JWT access token with 400 unsupported_token_type', async () => {
    const { access: jwt } = await tokens('jwt-app');
    expect(jwt.split('.')).toHaveLength(3);

    const res = await postForm(revocation, { token: jwt, token_type_hint: 'access_token' }, as('jwt-app'));

    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: 'unsupported_token_type',
      error_description: 'JWT access tokens cannot be revoked; they expire on their own.',
    });
    expect(await isActive(jwt)).toBe(true);
  });

  // RFC 7009 §2.2: an invalid token is not an error. Only our own JWT access tokens are "unsupported".
  it.each([
    ['three dotted parts that are no JWT', 'a.b.c'],
    [
      'a JWT access token of another issuer',
      [{ alg: 'ES256', typ: 'at+jwt' }, { iss: 'https://elsewhere.example', sub: 'x' }]
        .map((part) => Buffer.from(JSON.stringify(part)).toString('base64url'))
        .join('.') + '.c2ln',
    ],
  ])('answers 200 for %s', async (_what, token) => {
    const res = await postForm(revocation, { token }, as('jwt-app'));
    expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: {} });
  });
});

describe('revocation callers', () => {
  const failed = { error: 'invalid_client', error_description: 'Client authentication failed.' };

  it.each([
    ['no credentials', {}, {}],
    ['another client’s credentials with this client_id', as('other'), { client_id: 'app' }],
    ['a wrong secret in the Basic header', { authorization: basic('app', 'wrong') }, {}],
    ['an API resource’s credentials', { authorization: basic('api1', 'api1-secret') }, {}],
  ])('rejects %s with 401 invalid_client and revokes nothing', async (_name, headers: Record<string, string>, body: Record<string, string>) => {
    const { access } = await tokens('app');
    const res = await postForm(revocation, { token: access, ...body }, headers);
    expect(res.status).toBe(401);
    expect(res.body).toEqual(failed);
    expect(await isActive(access)).toBe(true);
  });

  it('rejects a request without a token with 400 invalid_request', async () => {
    const res = await postForm(revocation, {}, as('app'));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_request', error_description: 'The token parameter is missing.' });
  });
});

describe('discovery', () => {
  it('lists the revocation endpoint and the methods clients authenticate with there', async () => {
    const doc = (await (await fetch(`${s.url}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    expect(doc.revocation_endpoint).toBe(`${s.url}/connect/revocation`);
    expect(doc.revocation_endpoint_auth_methods_supported).toEqual(
      expect.arrayContaining(['client_secret_basic', 'client_secret_post']),
    );
  });
});
