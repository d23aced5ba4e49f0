/**
 * POST /connect/token over HTTP against the real service: client authentication with shared
 * secrets (Basic and POST body), client_credentials, the RFC 9068 access token, and every kind
 * of bad input the foundation issue lists, each with its exact status and error code.
 */
import { request as httpRequest } from 'node:http';
import fc from 'fast-check';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserConfig } from '../../src/config/schema.js';
import { hashSecret } from '../../src/sdk/hash.js';
import { basic, startServer, type TestServer } from '../support/server.js';
import { fixturePluginDir, leakPatterns, sharedSecretOnly, type TempPluginDir } from './plugin-dirs.js';

const secrets = {
  m2m: 'm2m-secret-4f1c8a',
  multiFirst: 'first-secret-9a2b77',
  multiSecond: 'second-secret-7c3d11',
  multiSha512: 'sha512-secret-5e6f42',
  expired: 'expired-secret-1d2e90',
  current: 'current-secret-3f4a65',
  onlyExpired: 'old-secret-8b9c03',
  odd: 'p:a+s%s wörd€-6a7b',
  magic: 'magic-secret-0c1d58',
  plus: 'plus+secret+7e8f',
} as const;
const oddClientId = 'odd:id +%é-client';
const wrongSecret = 'wrong-secret-2b3c4d';

const config: UserConfig = {
  apiScopes: [{ name: 'api1.read' }, { name: 'api1.write' }, { name: 'backend.read' }],
  apiResources: [
    { name: 'api1', scopes: ['api1.read', 'api1.write'] },
    { name: 'backend', scopes: ['backend.read'] },
  ],
  clients: [
    {
      clientId: 'm2m',
      clientSecrets: [{ value: hashSecret(secrets.m2m) }],
      allowedGrantTypes: ['client_credentials'],
      allowedScopes: ['api1.read', 'api1.write'],
    },
    {
      clientId: 'multi',
      clientSecrets: [
        { value: hashSecret(secrets.multiFirst), description: 'first' },
        { value: hashSecret(secrets.multiSecond), description: 'second' },
        { value: hashSecret(secrets.multiSha512, 'sha512'), description: 'sha-512' },
      ],
      allowedGrantTypes: ['client_credentials'],
      allowedScopes: ['api1.read', 'backend.read'],
      accessTokenLifetime: 120,
    },
    {
      clientId: 'rotating',
      clientSecrets: [
        { value: hashSecret(secrets.expired), expiration: '2020-01-01T00:00:00Z' },
        { value: hashSecret(secrets.current), expiration: '2999-12-31T23:59:59Z' },
      ],
      allowedGrantTypes: ['client_credentials'],
      allowedScopes: ['api1.read'],
    },
    {
      clientId: 'only-expired',
      clientSecrets: [{ value: hashSecret(secrets.onlyExpired), expiration: '2021-06-30T12:00:00Z' }],
      allowedGrantTypes: ['client_credentials'],
      allowedScopes: ['api1.read'],
    },
    {
      clientId: oddClientId,
      clientSecrets: [{ value: hashSecret(secrets.odd) }],
      allowedGrantTypes: ['client_credentials'],
      allowedScopes: ['api1.read'],
    },
    {
      clientId: 'plus',
      clientSecrets: [{ value: hashSecret(secrets.plus) }],
      allowedGrantTypes: ['client_credentials'],
      allowedScopes: ['api1.read'],
    },
    {
      clientId: 'magic',
      clientSecrets: [{ value: hashSecret(secrets.magic) }],
      allowedGrantTypes: ['urn:test:magic-word'],
      allowedScopes: ['api1.read'],
    },
  ],
  plugins: { 'magic-word': { word: 'abracadabra' } },
};

interface Reply {
  status: number;
  headers: Headers;
  text: string;
  body: Record<string, unknown>;
}

/** Every response: never a 500, never a stack trace or internal path, always JSON. */
function checkReply(reply: Reply): Reply {
  expect(reply.status, reply.text).not.toBe(500);
  // (A 200 carries a JWT, whose base64url could match a pattern by chance.)
  if (reply.status !== 200) for (const pattern of leakPatterns) expect(reply.text).not.toMatch(pattern);
  return reply;
}

async function send(url: string, init: RequestInit): Promise<Reply> {
  const res = await fetch(url, init);
  const text = await res.text();
  let body: Record<string, unknown> = {};
  if (text) body = JSON.parse(text) as Record<string, unknown>;
  return checkReply({ status: res.status, headers: res.headers, text, body });
}

/** A token error as RFC 6749 §5.2: status, code, a description, no-store. */
function expectOAuthError(reply: Reply, status: number, error: string, description?: string | RegExp): void {
  expect({ status: reply.status, error: reply.body.error }, reply.text).toEqual({ status, error });
  expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
  expect(typeof reply.body.error_description).toBe('string');
  expect(Object.keys(reply.body).sort()).toEqual(['error', 'error_description']);
  if (typeof description === 'string') expect(reply.body.error_description).toContain(description);
  else if (description) expect(reply.body.error_description).toMatch(description);
}

let server: TestServer;
let pluginDir: TempPluginDir;
let tokenUrl: string;
const issuedTokens: string[] = [];

function token(params: Record<string, string> | string, headers: Record<string, string> = {}): Promise<Reply> {
  return send(tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: typeof params === 'string' ? params : new URLSearchParams(params).toString(),
  });
}

const cc = { grant_type: 'client_credentials' };
const asM2m = { authorization: basic('m2m', secrets.m2m) };

/** Asserts a successful token response and returns the access token. */
function expectToken(reply: Reply, scope: string): string {
  expect(reply.status, reply.text).toBe(200);
  expect(reply.body).toMatchObject({ token_type: 'Bearer', scope });
  const accessToken = reply.body.access_token as string;
  issuedTokens.push(accessToken);
  return accessToken;
}

beforeAll(async () => {
  pluginDir = sharedSecretOnly();
  server = await startServer({ ...config, pluginDirs: [pluginDir.dir, fixturePluginDir('valid')] });
  tokenUrl = `${server.url}/connect/token`;
});

afterAll(async () => {
  await server?.close();
  pluginDir?.remove();
});

describe('client_credentials', () => {
  it('issues a token to a client authenticating with a Basic header', async () => {
    const reply = await token(cc, asM2m);
    expectToken(reply, 'api1.read api1.write');
    expect(Object.keys(reply.body).sort()).toEqual(['access_token', 'expires_in', 'scope', 'token_type']);
    expect(reply.body.expires_in).toBe(3600);
    expect(reply.headers.get('cache-control')).toBe('no-store');
    expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('issues a token to a client sending client_id and client_secret in the body', async () => {
    const reply = await token({ ...cc, client_id: 'm2m', client_secret: secrets.m2m });
    expectToken(reply, 'api1.read api1.write');
    expect(reply.headers.get('cache-control')).toBe('no-store');
  });

  it('issues an RFC 9068 JWT that verifies against the served JWKS', async () => {
    const before = Math.floor(Date.now() / 1000);
    const accessToken = expectToken(await token({ ...cc, scope: 'api1.read' }, asM2m), 'api1.read');
    const discovery = (await (await fetch(`${server.url}/.well-known/openid-configuration`)).json()) as { jwks_uri: string };
    const jwks = createRemoteJWKSet(new URL(discovery.jwks_uri));
    const { payload, protectedHeader } = await jwtVerify(accessToken, jwks, {
      issuer: server.url,
      audience: 'api1',
      typ: 'at+jwt',
    });
    expect(protectedHeader.typ).toBe('at+jwt');
    expect(protectedHeader.kid).toEqual(expect.any(String));
    expect(Object.keys(payload).sort()).toEqual(['aud', 'client_id', 'exp', 'iat', 'iss', 'jti', 'nbf', 'scope', 'sub']);
    expect(payload).toMatchObject({ iss: server.url, sub: 'm2m', aud: 'api1', client_id: 'm2m', scope: 'api1.read' });
    expect(payload.iat).toBeGreaterThanOrEqual(before);
    expect(payload.iat).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
    expect(payload.nbf).toBe(payload.iat);
    expect(payload.exp).toBe(payload.iat! + 3600);
    expect(payload.jti).toMatch(/^[\w-]{16,}$/);
  });

  it('gives every token its own jti', async () => {
    const a = expectToken(await token(cc, asM2m), 'api1.read api1.write');
    const b = expectToken(await token(cc, asM2m), 'api1.read api1.write');
    const jti = (t: string) => (JSON.parse(Buffer.from(t.split('.')[1]!, 'base64url').toString()) as { jti: string }).jti;
    expect(jti(a)).not.toBe(jti(b));
  });

  it("sets aud to every API resource whose scopes were granted, and expires_in to the client's lifetime", async () => {
    const reply = await token({ ...cc, scope: 'api1.read backend.read' }, { authorization: basic('multi', secrets.multiFirst) });
    const accessToken = expectToken(reply, 'api1.read backend.read');
    expect(reply.body.expires_in).toBe(120);
    const jwks = createRemoteJWKSet(new URL(`${server.url}/.well-known/openid-configuration/jwks`));
    const { payload } = await jwtVerify(accessToken, jwks, { issuer: server.url, audience: 'backend' });
    expect(payload.aud).toEqual(['api1', 'backend']);
    expect(payload.exp! - payload.iat!).toBe(120);
  });
});

describe('scope', () => {
  it('grants exactly the requested subset', async () => {
    const accessToken = expectToken(await token({ ...cc, scope: 'api1.write' }, asM2m), 'api1.write');
    expect(decodeClaims(accessToken).scope).toBe('api1.write');
  });

  it('grants every allowed scope when scope is omitted', async () => {
    const accessToken = expectToken(await token(cc, asM2m), 'api1.read api1.write');
    expect(decodeClaims(accessToken).scope).toBe('api1.read api1.write');
  });

  it('treats an empty scope parameter as omitted (RFC 6749 §3.1)', async () => {
    expectToken(await token({ ...cc, scope: '' }, asM2m), 'api1.read api1.write');
  });

  it('rejects a scope nobody defines with invalid_scope', async () => {
    expectOAuthError(await token({ ...cc, scope: 'api1.read api1.delete' }, asM2m), 400, 'invalid_scope', 'The client is not allowed a requested scope.');
  });

  it('rejects a defined scope the client is not allowed with invalid_scope', async () => {
    expectOAuthError(await token({ ...cc, scope: 'backend.read' }, asM2m), 400, 'invalid_scope', 'The client is not allowed a requested scope.');
  });

  it('rejects a malformed scope with invalid_scope', async () => {
    expectOAuthError(await token({ ...cc, scope: 'api1.read "quoted"' }, asM2m), 400, 'invalid_scope');
  });
});

describe('grant_type', () => {
  it('answers unauthorized_client for a registered grant type the client may not use', async () => {
    expectOAuthError(await token({ grant_type: 'urn:test:magic-word', word: 'abracadabra' }, asM2m), 400, 'unauthorized_client');
  });

  it('answers unsupported_grant_type for a grant type nothing provides', async () => {
    expectOAuthError(await token({ grant_type: 'urn:example:teleport' }, asM2m), 400, 'unsupported_grant_type');
  });

  it('answers invalid_request naming grant_type when it is missing', async () => {
    expectOAuthError(await token({ scope: 'api1.read' }, asM2m), 400, 'invalid_request', 'grant_type');
  });

  it('answers invalid_request when grant_type is empty', async () => {
    expectOAuthError(await token('grant_type=', asM2m), 400, 'invalid_request', 'grant_type');
  });
});

describe('client authentication', () => {
  const comparable = (r: Reply) => ({
    status: r.status,
    body: r.body,
    wwwAuthenticate: r.headers.get('www-authenticate'),
    cacheControl: r.headers.get('cache-control'),
    contentType: r.headers.get('content-type'),
  });

  it('gives a wrong secret and an unknown client the identical 401 invalid_client, with a Basic challenge', async () => {
    const wrong = await token(cc, { authorization: basic('m2m', wrongSecret) });
    const unknown = await token(cc, { authorization: basic('nobody', wrongSecret) });
    expectOAuthError(wrong, 401, 'invalid_client');
    expect(wrong.headers.get('www-authenticate')).toMatch(/^Basic\b/);
    expect(wrong.headers.get('cache-control')).toBe('no-store');
    expect(comparable(unknown)).toEqual(comparable(wrong));
  });

  it('gives a wrong secret and an unknown client the identical 401 invalid_client in the body, with no challenge', async () => {
    const wrong = await token({ ...cc, client_id: 'm2m', client_secret: wrongSecret });
    const unknown = await token({ ...cc, client_id: 'nobody', client_secret: wrongSecret });
    expectOAuthError(wrong, 401, 'invalid_client');
    expect(wrong.headers.get('www-authenticate')).toBeNull();
    expect(comparable(unknown)).toEqual(comparable(wrong));
  });

  it('answers invalid_client when no credentials are sent at all', async () => {
    const reply = await token(cc);
    expectOAuthError(reply, 401, 'invalid_client');
    expect(reply.headers.get('www-authenticate')).toBeNull();
  });

  it('answers invalid_client for client_id without client_secret for a confidential client', async () => {
    expectOAuthError(await token({ ...cc, client_id: 'm2m' }), 401, 'invalid_client');
  });

  it('answers invalid_client when the body client_id differs from the Basic client', async () => {
    expectOAuthError(await token({ ...cc, client_id: 'multi' }, asM2m), 401, 'invalid_client');
  });

  it('accepts any one of several secrets', async () => {
    for (const secret of [secrets.multiFirst, secrets.multiSecond, secrets.multiSha512]) {
      expectToken(await token({ ...cc, scope: 'api1.read' }, { authorization: basic('multi', secret) }), 'api1.read');
      expectToken(await token({ ...cc, scope: 'api1.read', client_id: 'multi', client_secret: secret }), 'api1.read');
    }
  });

  it('accepts a secret stored as a base64 SHA-512 hash', async () => {
    expectToken(await token({ ...cc, scope: 'api1.read' }, { authorization: basic('multi', secrets.multiSha512) }), 'api1.read');
  });

  it('never accepts an expired secret, but accepts an unexpired one of the same client', async () => {
    const expired = await token(cc, { authorization: basic('rotating', secrets.expired) });
    expectOAuthError(expired, 401, 'invalid_client');
    expectOAuthError(await token({ ...cc, client_id: 'rotating', client_secret: secrets.expired }), 401, 'invalid_client');
    expectToken(await token(cc, { authorization: basic('rotating', secrets.current) }), 'api1.read');
  });

  it('answers a client whose only secret expired exactly like a wrong secret', async () => {
    const expired = await token(cc, { authorization: basic('only-expired', secrets.onlyExpired) });
    const wrong = await token(cc, { authorization: basic('m2m', wrongSecret) });
    expectOAuthError(expired, 401, 'invalid_client');
    expect(comparable(expired)).toEqual(comparable(wrong));
  });

  it("does not take one client's secret for another client", async () => {
    expectOAuthError(await token(cc, { authorization: basic('multi', secrets.m2m) }), 401, 'invalid_client');
  });

  it('decodes form-urlencoded Basic credentials (RFC 6749 §2.3.1): ":", "+", "%", space and non-ASCII', async () => {
    const reply = await token(cc, { authorization: basic(oddClientId, secrets.odd) });
    const accessToken = expectToken(reply, 'api1.read');
    expect(decodeClaims(accessToken)).toMatchObject({ sub: oddClientId, client_id: oddClientId });
  });

  it('takes the same odd credentials in the body', async () => {
    expectToken(await token({ ...cc, client_id: oddClientId, client_secret: secrets.odd }), 'api1.read');
  });

  it('reads "+" in Basic credentials as a form-encoded space, so an unencoded "+" in a secret does not match', async () => {
    expectToken(await token(cc, { authorization: basic('plus', secrets.plus) }), 'api1.read');
    const unencoded = `Basic ${Buffer.from(`plus:${secrets.plus}`).toString('base64')}`;
    expectOAuthError(await token(cc, { authorization: unencoded }), 401, 'invalid_client');
    const asSpaces = `Basic ${Buffer.from(`plus:${secrets.plus.replaceAll('+', ' ')}`).toString('base64')}`;
    expectOAuthError(await token(cc, { authorization: asSpaces }), 401, 'invalid_client');
  });

  it('answers invalid_request when credentials come in both the header and the body', async () => {
    const reply = await token({ ...cc, client_id: 'm2m', client_secret: secrets.m2m }, asM2m);
    expectOAuthError(reply, 400, 'invalid_request');
  });

  const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
  it.each([
    ['not base64', 'Basic !!not*base64!!'],
    ['no credentials after the scheme', 'Basic'],
    ['no colon', `Basic ${b64('m2m-and-no-colon')}`],
    ['bad percent-encoding in the secret', `Basic ${b64('m2m:%E0%A4%A')}`],
    ['bad percent-encoding in the id', `Basic ${b64('%zz:anything')}`],
    ['an empty client id', `Basic ${b64(':some-secret')}`],
  ])('answers a malformed Basic header (%s) with 401 invalid_client and a Basic challenge', async (_case, authorization) => {
    const reply = await token(cc, { authorization });
    expectOAuthError(reply, 401, 'invalid_client');
    expect(reply.headers.get('www-authenticate')).toMatch(/^Basic\b/);
  });
});

describe('malformed requests', () => {
  it.each([
    ['JSON', 'application/json', JSON.stringify({ grant_type: 'client_credentials' })],
    ['text/plain', 'text/plain', 'grant_type=client_credentials'],
    ['multipart', 'multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="grant_type"\r\n\r\nclient_credentials\r\n--x--'],
  ])('rejects a %s body with 400 invalid_request', async (_case, contentType, body) => {
    const reply = await send(tokenUrl, { method: 'POST', headers: { 'content-type': contentType, ...asM2m }, body });
    expectOAuthError(reply, 400, 'invalid_request', 'application/x-www-form-urlencoded');
  });

  it('rejects a body with no content type with 400 invalid_request', async () => {
    const reply = await rawPost(tokenUrl, 'grant_type=client_credentials', { authorization: asM2m.authorization });
    expectOAuthError(reply, 400, 'invalid_request', 'application/x-www-form-urlencoded');
  });

  it.each(['grant_type', 'scope', 'client_id'])('rejects %s given twice with invalid_request naming it', async (name) => {
    const body = `grant_type=client_credentials&client_id=m2m&client_secret=${secrets.m2m}&scope=api1.read&${name}=x`;
    expectOAuthError(await token(body), 400, 'invalid_request', `Parameter ${name} is included more than once`);
  });

  it('keeps qs-style names literal: a[]=1 and a.b=1 are plain strings, never arrays or objects', async () => {
    const body = 'grant_type=urn:test:magic-word&word=abracadabra&a[]=1&a.b=2&c[x][y]=3&scope[]=api1.write&__proto__=4';
    const reply = await token(body, { authorization: basic('magic', secrets.magic) });
    expectToken(reply, 'api1.read');
    expect(reply.body.received).toEqual({
      grant_type: 'urn:test:magic-word',
      word: 'abracadabra',
      'a[]': '1',
      'a.b': '2',
      'c[x][y]': '3',
      'scope[]': 'api1.write',
      ['__proto__']: '4',
    });
  });

  it('rejects a[]=1&a[]=2 as a duplicate instead of building an array', async () => {
    const reply = await token('grant_type=client_credentials&a[]=1&a[]=2', asM2m);
    expectOAuthError(reply, 400, 'invalid_request', 'A parameter is included more than once');
  });

  it('does not read grant_type[] as grant_type', async () => {
    expectOAuthError(await token('grant_type[]=client_credentials', asM2m), 400, 'invalid_request', 'grant_type');
  });

  it('does not read client_secret[] as a client secret', async () => {
    const reply = await token(`grant_type=client_credentials&client_id=m2m&client_secret[]=${secrets.m2m}`);
    expectOAuthError(reply, 401, 'invalid_client');
  });

  it('answers a body over 64 KiB with 413 and a JSON error; one just under the limit is served', async () => {
    // 30 parameters of 2000 characters: under every per-parameter cap and the parameter count.
    const filler = Array.from({ length: 30 }, (_, i) => `p${i}=${'a'.repeat(2000)}`).join('&');
    const under = `grant_type=client_credentials&${filler}`;
    expect(Buffer.byteLength(under)).toBeLessThan(64 * 1024);
    expectToken(await token(under, asM2m), 'api1.read api1.write');

    const over = `grant_type=client_credentials&x=${'a'.repeat(64 * 1024)}`;
    expectOAuthError(await token(over, asM2m), 413, 'invalid_request', 'too large');
  });

  it.each([
    ['client_id', 101, 'client_id'],
    ['client_secret', 101, 'client_secret'],
    ['scope', 301, 'scope'],
  ])('rejects %s longer than its cap (%i characters) with 400 invalid_request', async (name, length, named) => {
    const params: Record<string, string> = { ...cc, client_id: 'm2m', client_secret: secrets.m2m, [name]: 'x'.repeat(length) };
    expectOAuthError(await token(params), 400, 'invalid_request', `Parameter ${named} is too long`);
  });

  it('accepts client_id and client_secret of exactly 100 characters and scope of exactly 300 (they just do not authenticate)', async () => {
    expectOAuthError(await token({ ...cc, client_id: 'c'.repeat(100), client_secret: 's'.repeat(100) }), 401, 'invalid_client');
    expectOAuthError(await token({ ...cc, scope: 's'.repeat(300) }, asM2m), 400, 'invalid_scope');
  });

  it('rejects more than 50 parameters with 400 invalid_request', async () => {
    const many = Array.from({ length: 50 }, (_, i) => `p${i}=1`).join('&');
    expectOAuthError(await token(`grant_type=client_credentials&${many}`, asM2m), 400, 'invalid_request', 'Too many parameters');
  });

  it('answers GET on the token endpoint with 405 and a JSON error', async () => {
    const reply = await send(tokenUrl, { method: 'GET' });
    expectOAuthError(reply, 405, 'invalid_request');
    // OPTIONS answers CORS preflights, for config and stored clients' origins alike.
    expect(reply.headers.get('allow')).toBe('OPTIONS, POST');
  });

  it('answers PUT on the token endpoint with 405 and a JSON error', async () => {
    const reply = await send(tokenUrl, { method: 'PUT', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=1' });
    expectOAuthError(reply, 405, 'invalid_request');
  });

  it('answers an unknown path with 404 and a JSON error', async () => {
    expectOAuthError(await send(`${server.url}/connect/nothing-here`, { method: 'GET' }), 404, 'invalid_request');
    expectOAuthError(
      await send(`${server.url}/connect/nothing-here`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=1' }),
      404,
      'invalid_request',
    );
  });

  it('never answers 500 or leaks internals, whatever the form body', async () => {
    const part = fc.oneof(
      fc.constantFrom('grant_type', 'client_id', 'client_secret', 'scope', 'a[]', 'a.b', '%', '%zz', '%E0%A4', '=', '&', '+', '__proto__'),
      fc.string({ maxLength: 12 }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(part, { maxLength: 12 }), async (parts) => {
        const reply = await token(parts.join(''), asM2m);
        expect([200, 400, 401]).toContain(reply.status);
        if (reply.status !== 200) expect(typeof reply.body.error).toBe('string');
      }),
      { numRuns: 60 },
    );
  });

  it('never answers 500 or leaks internals, whatever the Authorization header', async () => {
    const header = fc.oneof(
      fc.string({ maxLength: 40 }).map((s) => `Basic ${s}`),
      fc.string({ maxLength: 40 }).map((s) => `Basic ${Buffer.from(s).toString('base64')}`),
      fc.tuple(fc.string({ maxLength: 20 }), fc.string({ maxLength: 20 })).map(([a, b]) => `Basic ${Buffer.from(`${a}:${b}`).toString('base64')}`),
      fc.string({ maxLength: 40 }).filter((s) => /^[\x20-\x7e]*$/.test(s)),
    ).filter((h) => /^[\x20-\x7e]*$/.test(h) && h.trim() === h);
    await fc.assert(
      fc.asyncProperty(header, async (authorization) => {
        const reply = await token(cc, { authorization });
        expect([200, 400, 401]).toContain(reply.status);
        if (reply.status === 401) expect(reply.body.error).toBe('invalid_client');
      }),
      { numRuns: 60 },
    );
  });
});

describe('configured limits', () => {
  let limited: TestServer;
  beforeAll(async () => {
    limited = await startServer({
      ...config,
      pluginDirs: [pluginDir.dir],
      clients: [config.clients![0]!],
      plugins: {},
      limits: { bodyBytes: 2048, parameters: 10 },
    });
  });
  afterAll(async () => {
    await limited?.close();
  });
  const post = (body: string) =>
    send(`${limited.url}/connect/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...asM2m },
      body,
    });

  it('serves a body under limits.bodyBytes and answers one over it with 413', async () => {
    expectToken(await post(`grant_type=client_credentials&pad=${'a'.repeat(1500)}`), 'api1.read api1.write');
    expectOAuthError(await post(`grant_type=client_credentials&pad=${'a'.repeat(2048)}`), 413, 'invalid_request', 'too large');
  });

  it('answers more than limits.parameters parameters with 400 invalid_request', async () => {
    const nine = Array.from({ length: 9 }, (_, i) => `p${i}=1`).join('&');
    expectToken(await post(`grant_type=client_credentials&${nine}`), 'api1.read api1.write');
    expectOAuthError(await post(`grant_type=client_credentials&${nine}&p9=1`), 400, 'invalid_request', 'at most 10');
  });
});

describe('logs', () => {
  it('never contain a plain secret, a Basic credential or an issued token', () => {
    const log = server.logText();
    expect(log.length).toBeGreaterThan(0);
    expect(issuedTokens.length).toBeGreaterThan(5);
    for (const secret of [...Object.values(secrets), wrongSecret]) {
      expect(log).not.toContain(secret);
      expect(log).not.toContain(encodeURIComponent(secret));
    }
    expect(log).not.toContain(basic('m2m', secrets.m2m).slice('Basic '.length));
    for (const t of issuedTokens) expect(log).not.toContain(t.split('.')[2]);
  });
});

function decodeClaims(jwt: string): Record<string, unknown> {
  expect(decodeProtectedHeader(jwt).typ).toBe('at+jwt');
  return JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
}

/** A POST with no Content-Type header at all (fetch always adds one for a string body). */
function rawPost(url: string, body: string, headers: Record<string, string>): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers: { ...headers, 'content-length': Buffer.byteLength(body) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        const h = new Headers();
        for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') h.set(k, v);
        resolve(checkReply({ status: res.statusCode ?? 0, headers: h, text, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} }));
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}
