/**
 * POST /connect/introspect (RFC 7662) over HTTP: API resources authenticate with their own
 * secrets and learn about a token only as far as it is meant for them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import type { UserConfig } from '../../src/config/schema.js';
import { hashPassword } from '../../src/oauth/password-hash.js';
import { hashSecret } from '../../src/sdk/hash.js';
import { basic, postForm, startServer, type TestServer } from '../support/server.js';
import { handlePattern } from '../support/handle-pattern.js';

const clock = { at: Date.now(), now(): number { return this.at; } };
const lifetime = 600;

let s: TestServer;
let introspect: string;
let token: string;

beforeAll(async () => {
  const password = await hashPassword('alice-password', { ln: 10, r: 8, p: 1 });
  const config: UserConfig = {
    apiScopes: [{ name: 'api1.read' }, { name: 'api1.write' }, { name: 'backend.read' }],
    apiResources: [
      { name: 'api1', scopes: ['api1.read', 'api1.write'], secrets: [{ value: hashSecret('api1-secret') }] },
      { name: 'backend', scopes: ['backend.read'], secrets: [{ value: hashSecret('backend-secret') }] },
    ],
    users: [{ subjectId: 'alice-1', username: 'alice', password }],
    clients: [
      client('jwt-client', 'jwt', ['client_credentials']),
      client('ref-client', 'reference', ['client_credentials']),
      client('user-jwt', 'jwt', ['password']),
      client('user-ref', 'reference', ['password']),
    ],
  };
  s = await startServer(config, { clock });
  introspect = `${s.url}/connect/introspect`;
  token = `${s.url}/connect/token`;
});

afterAll(() => s?.close());

function client(clientId: string, accessTokenType: 'jwt' | 'reference', allowedGrantTypes: string[]) {
  return {
    clientId,
    clientSecrets: [{ value: hashSecret(`${clientId}-secret`) }],
    allowedGrantTypes,
    allowedScopes: ['api1.read', 'api1.write', 'backend.read'],
    accessTokenType,
    accessTokenLifetime: lifetime,
  };
}

async function issue(clientId: string, params: Record<string, string>): Promise<string> {
  const res = await postForm(token, params, { authorization: basic(clientId, `${clientId}-secret`) });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.access_token as string;
}

const clientToken = (clientId: string, scope = 'api1.read backend.read') =>
  issue(clientId, { grant_type: 'client_credentials', scope });
const userToken = (clientId: string, scope = 'api1.read backend.read') =>
  issue(clientId, { grant_type: 'password', username: 'alice', password: 'alice-password', scope });

const asApi1 = (params: Record<string, string>) => postForm(introspect, params, { authorization: basic('api1', 'api1-secret') });

const inactive = { active: false };

describe('introspection of an active token', () => {
  it('describes a reference token to an API authenticating with Basic, with only its own scopes', async () => {
    const reference = await clientToken('ref-client');
    expect(reference).toMatch(handlePattern);
    const now = Math.floor(clock.now() / 1000);

    const res = await asApi1({ token: reference });

    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      active: true,
      iss: s.url,
      client_id: 'ref-client',
      scope: 'api1.read',
      aud: ['api1', 'backend'],
      iat: now,
      nbf: now,
      exp: now + lifetime,
      jti: expect.stringMatching(/^[\w-]{22}$/),
      token_type: 'Bearer',
    });
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('pragma')).toBe('no-cache');
  });

  it('describes a JWT access token to an API authenticating with its secret in the body', async () => {
    const jwt = await clientToken('jwt-client', 'api1.read api1.write backend.read');
    const now = Math.floor(clock.now() / 1000);

    const res = await postForm(introspect, { token: jwt, client_id: 'backend', client_secret: 'backend-secret' });

    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      active: true,
      iss: s.url,
      client_id: 'jwt-client',
      scope: 'backend.read',
      aud: ['api1', 'backend'],
      iat: now,
      nbf: now,
      exp: now + lifetime,
      jti: expect.any(String),
      token_type: 'Bearer',
    });
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('accepts token_type_hint and ignores a wrong one', async () => {
    const reference = await clientToken('ref-client', 'api1.write');
    const res = await asApi1({ token: reference, token_type_hint: 'refresh_token' });
    expect(res.body).toMatchObject({ active: true, scope: 'api1.write' });
  });

  it.each(['user-jwt', 'user-ref'])('reports sub and auth_time only for a user token (%s)', async (clientId) => {
    const user = await userToken(clientId);
    const res = await asApi1({ token: user });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ active: true, sub: 'alice-1', client_id: clientId, scope: 'api1.read' });
    expect(res.body.auth_time).toBe(Math.floor(clock.now() / 1000));

    const other = clientId === 'user-jwt' ? 'jwt-client' : 'ref-client';
    const machine = await asApi1({ token: await clientToken(other) });
    expect(machine.body.active).toBe(true);
    expect(machine.body).not.toHaveProperty('sub');
    expect(machine.body).not.toHaveProperty('auth_time');
  });
});

describe('introspection of a token that is not active for the caller', () => {
  it('answers only { active: false } for an unknown reference token', async () => {
    const res = await asApi1({ token: randomBytes(32).toString('base64url') });
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual(inactive);
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it.each([
    ['free text', 'not a token'],
    ['a three-part string', 'a.b.c'],
    ['a reference handle of the wrong length', randomBytes(31).toString('base64url')],
  ])('answers only { active: false } for a malformed token: %s', async (_name, value) => {
    const res = await asApi1({ token: value });
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual(inactive);
  });

  it('answers only { active: false } for a JWT whose signature or payload was tampered with', async () => {
    const jwt = await clientToken('jwt-client');
    const [header, payload, signature] = jwt.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
    const forged = Buffer.from(JSON.stringify({ ...claims, scope: 'api1.read api1.write' })).toString('base64url');
    const flipped = signature.slice(0, -2) + (signature.endsWith('AA') ? 'BB' : 'AA');

    expect((await asApi1({ token: `${header}.${forged}.${signature}` })).body).toStrictEqual(inactive);
    expect((await asApi1({ token: `${header}.${payload}.${flipped}` })).body).toStrictEqual(inactive);
  });

  it.each(['jwt-client', 'ref-client'])('answers only { active: false } once a %s token has expired', async (clientId) => {
    const issued = await clientToken(clientId);
    expect((await asApi1({ token: issued })).body.active).toBe(true);
    const start = clock.at;
    try {
      clock.at = start + (lifetime + 10) * 1000;
      const res = await asApi1({ token: issued });
      expect(res.status).toBe(200);
      expect(res.body).toStrictEqual(inactive);
    } finally {
      clock.at = start;
    }
  });

  it('answers only { active: false } for a revoked reference token', async () => {
    const reference = await clientToken('ref-client');
    expect((await asApi1({ token: reference })).body.active).toBe(true);
    const revoked = await postForm(`${s.url}/connect/revocation`, { token: reference }, {
      authorization: basic('ref-client', 'ref-client-secret'),
    });
    expect(revoked.status).toBe(200);
    expect((await asApi1({ token: reference })).body).toStrictEqual(inactive);
  });

  it.each(['jwt-client', 'ref-client'])(
    'answers only { active: false } when none of the token scopes belong to the caller (%s)',
    async (clientId) => {
      const backendOnly = await clientToken(clientId, 'backend.read');
      const res = await asApi1({ token: backendOnly });
      expect(res.status).toBe(200);
      expect(res.body).toStrictEqual(inactive);
      // The same token is active for the API it was meant for.
      const backend = await postForm(introspect, { token: backendOnly }, { authorization: basic('backend', 'backend-secret') });
      expect(backend.body).toMatchObject({ active: true, scope: 'backend.read', aud: 'backend' });
    },
  );

  it('answers only { active: false } to an API left out of a token narrowed to another audience', async () => {
    const client = s.app.config.clients.find((c) => c.clientId === 'jwt-client')!;
    const { token: narrowed } = await s.app.tokenIssuer.issueAccessToken({
      client,
      grantType: 'urn:ietf:params:oauth:grant-type:token-exchange',
      grant: { subject: { kind: 'client', id: 'jwt-client' }, audience: ['backend'] },
      scopes: ['api1.read', 'backend.read'],
    });
    expect((await asApi1({ token: narrowed })).body).toStrictEqual(inactive);
    const backend = await postForm(introspect, { token: narrowed }, { authorization: basic('backend', 'backend-secret') });
    expect(backend.body).toMatchObject({ active: true, scope: 'backend.read', aud: 'backend' });
  });
});

describe('introspection callers', () => {
  // One text for every failure, so it tells a client's developer what the endpoint takes without
  // telling anyone which ids exist or whether an id is a client's or an API resource's.
  const failed = {
    error: 'invalid_client',
    error_description: "API resource authentication failed: introspection takes an API resource's name and secret, not a client's.",
  };

  it.each([
    ['a wrong secret in the Basic header', { authorization: basic('api1', 'wrong') }, {}],
    ['a wrong secret in the body', {}, { client_id: 'api1', client_secret: 'wrong' }],
    ['another API’s secret', { authorization: basic('api1', 'backend-secret') }, {}],
    ['an unknown API', { authorization: basic('api9', 'api1-secret') }, {}],
    ['a client, not an API resource', { authorization: basic('jwt-client', 'jwt-client-secret') }, {}],
    ['a client’s credentials in the body', {}, { client_id: 'ref-client', client_secret: 'ref-client-secret' }],
    ['no credentials', {}, {}],
    ['only a client_id', {}, { client_id: 'api1' }],
  ])('rejects %s with 401 invalid_client', async (_name, headers: Record<string, string>, body: Record<string, string>) => {
    const reference = await clientToken('ref-client');
    const res = await postForm(introspect, { token: reference, ...body }, headers);
    expect(res.status).toBe(401);
    expect(res.body).toEqual(failed);
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('logs that the credentials were a client\'s, which the caller is not told', async () => {
    const res = await postForm(introspect, { token: 'x' }, { authorization: basic('jwt-client', 'jwt-client-secret'), 'x-request-id': 'intro-client-creds' });
    expect(res.status).toBe(401);
    const line = s.logs.find((l) => l.reqId === 'intro-client-creds' && l.msg === 'request rejected');
    expect(line?.detail).toBe('client_secret_basic for "jwt-client": a client, not an API resource');
  });

  it('challenges a caller that used the Basic scheme', async () => {
    const res = await postForm(introspect, { token: 'x' }, { authorization: basic('api1', 'wrong') });
    expect(res.headers.get('www-authenticate')).toBe('Basic realm="svc"');
  });

  it('rejects a request without a token with 400 invalid_request', async () => {
    const res = await asApi1({});
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_request', error_description: 'The token parameter is missing.' });
    expect((await asApi1({ token: '' })).status).toBe(400);
  });
});

describe('discovery', () => {
  it('lists the introspection endpoint and the methods APIs authenticate with there', async () => {
    const doc = (await (await fetch(`${s.url}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    expect(doc.introspection_endpoint).toBe(`${s.url}/connect/introspect`);
    expect(doc.introspection_endpoint_auth_methods_supported).toEqual(
      expect.arrayContaining(['client_secret_basic', 'client_secret_post']),
    );
    expect(doc.introspection_endpoint_auth_methods_supported).not.toContain('none');
  });
});
