/**
 * The extension grant pipeline at the token endpoint (spec §2.4, §4.1; issue 5): routing by
 * grant_type, the host's checks before a validator runs, what the validator sees, and how its
 * result (or its failure to produce one) becomes the response.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { hashSecret } from '../../src/sdk/hash.js';
import { postForm, startServer, type TestServer } from '../support/server.js';
import type { RecordedCall } from '../fixtures/grant-plugins/plugins/test-grants/index.js';
import { accessClaims, configWith, tokenRequest, withFixturePlugins } from '../fixtures/grant-plugins/world.js';
import { handlePattern } from '../support/handle-pattern.js';

const testGrants = ['urn:test:echo', 'urn:test:silent', 'urn:test:throws', 'urn:test:refuses'];

const calls = (): RecordedCall[] =>
  ((globalThis as unknown as Record<symbol, RecordedCall[] | undefined>)[Symbol.for('svc.test.grant-calls')] ??= []);

let server: TestServer;
beforeAll(async () => {
  server = await startServer({
    ...configWith([
      { clientId: 'tester', clientSecrets: [{ value: hashSecret('tester-secret') }], allowedGrantTypes: testGrants, allowedScopes: ['api1.read', 'backend.read', 'openid'], allowOfflineAccess: true },
      { clientId: 'online-only', clientSecrets: [{ value: hashSecret('online-only-secret') }], allowedGrantTypes: testGrants, allowedScopes: ['api1.read'] },
      // Allowed the scopes, but not the test grants.
      { clientId: 'outsider', clientSecrets: [{ value: hashSecret('outsider-secret') }], allowedGrantTypes: ['client_credentials'], allowedScopes: ['api1.read'] },
    ]),
    pluginDirs: withFixturePlugins,
  });
});
afterAll(() => server.close());
beforeEach(() => {
  calls().length = 0;
});

const asTester = (params: Record<string, string>) => tokenRequest(server, 'tester', params);

describe('routing', () => {
  it('sends a grant_type to the validator registered for it, and only to that one', async () => {
    const echo = await asTester({ grant_type: 'urn:test:echo', scope: 'api1.read' });
    expect(echo.status).toBe(200);
    const silent = await asTester({ grant_type: 'urn:test:silent', scope: 'api1.read' });
    expect(silent.status).toBe(400);
    expect(calls().map((c) => c.grantType)).toEqual(['urn:test:echo', 'urn:test:silent']);
  });

  it('answers unsupported_grant_type for a grant_type no validator handles, running none', async () => {
    const res = await asTester({ grant_type: 'urn:test:nobody', scope: 'api1.read' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'unsupported_grant_type', error_description: 'The grant type is not supported.' });
    expect(calls()).toEqual([]);
  });
});

describe('checks before the validator runs', () => {
  it('answers unauthorized_client when the client does not list the grant type, and the validator never runs', async () => {
    const res = await tokenRequest(server, 'outsider', { grant_type: 'urn:test:echo', scope: 'api1.read' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'unauthorized_client', error_description: 'The client is not allowed to use this grant type.' });
    expect(calls()).toEqual([]);
  });

  it('answers invalid_scope for a scope outside allowedScopes, and the validator never runs', async () => {
    const res = await asTester({ grant_type: 'urn:test:echo', scope: 'api1.read api1.write' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_scope', error_description: 'The client is not allowed a requested scope.' });
    expect(calls()).toEqual([]);
  });

  it('answers invalid_scope for offline_access when the client may not have refresh tokens, and the validator never runs', async () => {
    const res = await tokenRequest(server, 'online-only', { grant_type: 'urn:test:echo', scope: 'api1.read offline_access' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_scope', error_description: 'The client is not allowed a requested scope.' });
    expect(calls()).toEqual([]);
  });

  it('answers invalid_client for wrong credentials, and the validator never runs', async () => {
    const res = await postForm(`${server.url}/connect/token`, { grant_type: 'urn:test:echo', client_id: 'tester', client_secret: 'wrong' });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'invalid_client', error_description: 'Client authentication failed.' });
    expect(calls()).toEqual([]);
  });
});

describe('what the validator sees', () => {
  it('gets the client, the grant type, the requested scopes and every raw parameter but the client secret', async () => {
    const res = await postForm(`${server.url}/connect/token`, {
      grant_type: 'urn:test:echo',
      client_id: 'tester',
      client_secret: 'tester-secret',
      scope: 'backend.read api1.read',
      tenant: 'acme',
      'x-custom.param': 'a b&c=d',
    });
    expect(res.status).toBe(200);
    expect(calls()).toEqual([
      {
        grantType: 'urn:test:echo',
        clientId: 'tester',
        requestedScopes: ['backend.read', 'api1.read'],
        scopeRequested: true,
        raw: { grant_type: 'urn:test:echo', client_id: 'tester', scope: 'backend.read api1.read', tenant: 'acme', 'x-custom.param': 'a b&c=d' },
      },
    ]);
  });

  it('never gets a parameter a plugin declared a credential, whatever plugin reads it', async () => {
    const res = await asTester({ grant_type: 'urn:test:echo', scope: 'api1.read', x_partner_key: 'k-123', tenant: 'acme' });
    expect(res.status).toBe(200);
    expect(calls()[0]!.raw).toEqual({ grant_type: 'urn:test:echo', scope: 'api1.read', tenant: 'acme' });
  });

  it('never logs a declared credential parameter, even when a plugin logs it', async () => {
    const res = await asTester({ grant_type: 'urn:test:echo', scope: 'api1.read', x_partner_key: 'partner-key-d41d8cd9' });
    expect(res.status).toBe(200);
    expect(server.logText()).not.toContain('partner-key-d41d8cd9');
    expect(server.logs.find((l) => l.msg === 'partner key seen')).toMatchObject({ x_partner_key: '[redacted]', plugin: 'test-grants' });
  });

  it('holds a declared parameter to its declared cap, naming it', async () => {
    const within = await asTester({ grant_type: 'urn:test:echo', scope: 'api1.read', x_partner_key: 'k'.repeat(64) });
    expect(within.status).toBe(200);
    const over = await asTester({ grant_type: 'urn:test:echo', scope: 'api1.read', x_partner_key: 'k'.repeat(65) });
    expect(over.status).toBe(400);
    expect(over.body).toEqual({ error: 'invalid_request', error_description: 'Parameter x_partner_key is too long (at most 64 characters).' });
  });

  it('gets every API scope the client is allowed when no scope was sent', async () => {
    const res = await asTester({ grant_type: 'urn:test:echo' });
    expect(res.status).toBe(200);
    expect(calls()[0]).toMatchObject({ requestedScopes: ['api1.read', 'backend.read'], scopeRequested: false, raw: { grant_type: 'urn:test:echo' } });
    expect(res.body.scope).toBe('api1.read backend.read');
  });
});

describe('the result', () => {
  it('issues a token for the subject the validator named, with the granted scopes', async () => {
    const res = await asTester({ grant_type: 'urn:test:echo', scope: 'api1.read', subject: 'carol' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 3600, scope: 'api1.read' });
    expect(accessClaims(res.body.access_token)).toMatchObject({
      iss: server.url, sub: 'carol', client_id: 'tester', scope: 'api1.read', aud: 'api1', auth_time: 1_700_000_000,
    });
  });

  it('adds custom response parameters, but never over a standard member', async () => {
    const response = {
      access_token: 'forged', token_type: 'N_A', expires_in: 1, scope: 'everything', refresh_token: 'forged-rt', id_token: 'forged-id',
      issued_by: 'test-grants', details: { level: 2, tags: ['a', 'b'] },
    };
    const res = await asTester({ grant_type: 'urn:test:echo', scope: 'api1.read', response: JSON.stringify(response) });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      access_token: expect.stringMatching(/^ey[\w-]+\.[\w-]+\.[\w-]+$/),
      token_type: 'Bearer',
      expires_in: 3600,
      scope: 'api1.read',
      issued_by: 'test-grants',
      details: { level: 2, tags: ['a', 'b'] },
    });
  });

  it('keeps the real refresh_token and id_token when custom parameters try to replace them', async () => {
    const res = await asTester({
      grant_type: 'urn:test:echo', scope: 'openid api1.read offline_access',
      response: JSON.stringify({ refresh_token: 'forged-rt', id_token: 'forged-id' }),
    });
    expect(res.status).toBe(200);
    expect(res.body.refresh_token).toEqual(expect.stringMatching(handlePattern));
    expect(decodeJwt(res.body.id_token as string)).toMatchObject({ sub: 'user-1', aud: 'tester' });
  });

  it('puts extra claims in the JWT, but never over iss, sub, aud, exp, client_id or scope', async () => {
    const claims = {
      iss: 'https://evil.example', sub: 'root', aud: 'everything', exp: 4_102_444_800, client_id: 'admin', scope: 'api1.write',
      tenant: 'acme', roles: ['reader'],
    };
    const res = await asTester({ grant_type: 'urn:test:echo', scope: 'api1.read', claims: JSON.stringify(claims) });
    expect(res.status).toBe(200);
    const jwt = accessClaims(res.body.access_token);
    expect(jwt).toMatchObject({ iss: server.url, sub: 'user-1', aud: 'api1', client_id: 'tester', scope: 'api1.read', tenant: 'acme', roles: ['reader'] });
    expect(jwt.exp).toBe(jwt.iat! + 3600);
  });

  it('answers invalid_scope when the validator grants scopes beyond the requested ones', async () => {
    const res = await asTester({ grant_type: 'urn:test:echo', scope: 'api1.read', grant_scopes: 'api1.read backend.read' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_scope', error_description: 'The grant produced scopes beyond those requested.' });
  });

  it('lets the validator narrow the requested scopes', async () => {
    const res = await asTester({ grant_type: 'urn:test:echo', scope: 'api1.read backend.read', grant_scopes: 'backend.read' });
    expect(res.status).toBe(200);
    expect(res.body.scope).toBe('backend.read');
    expect(accessClaims(res.body.access_token)).toMatchObject({ scope: 'backend.read', aud: 'backend' });
  });
});

describe('a validator that does not answer well', () => {
  it('that sets no result denies with invalid_grant, and the log says why', async () => {
    const res = await asTester({ grant_type: 'urn:test:silent', scope: 'api1.read' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_grant', error_description: 'The grant is invalid.' });
    expect(calls()).toHaveLength(1);
    expect(server.logs).toContainEqual(
      expect.objectContaining({ level: 40, grantType: 'urn:test:silent', clientId: 'tester', msg: 'grant validator set no result; denied' }),
    );
  });

  it('that throws gives a generic 500 server_error, the cause only in the log, and the server keeps serving', async () => {
    const raw = await fetch(`${server.url}/connect/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from('tester:tester-secret').toString('base64')}` },
      body: 'grant_type=urn%3Atest%3Athrows&scope=api1.read',
    });
    const text = await raw.text();
    expect(raw.status).toBe(500);
    expect(raw.headers.get('content-type')).toMatch(/^application\/json/);
    expect(raw.headers.get('cache-control')).toBe('no-store');
    expect(JSON.parse(text)).toEqual({ error: 'server_error', error_description: 'An unexpected error occurred.' });
    expect(text).not.toMatch(/hunter2|users-db|Error:|\bat .*\.ts/);

    expect(server.logs).toContainEqual(
      expect.objectContaining({
        level: 50, grantType: 'urn:test:throws', clientId: 'tester', msg: 'grant validator threw',
        err: expect.objectContaining({ message: 'connection to users-db failed: password=hunter2' }),
      }),
    );
    const after = await asTester({ grant_type: 'urn:test:echo', scope: 'api1.read' });
    expect(after.status).toBe(200);
  });

  it('that throws on many concurrent requests never takes the server down', async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => asTester({ grant_type: i % 2 ? 'urn:test:throws' : 'urn:test:echo', scope: 'api1.read' })),
    );
    expect(results.map((r) => r.status)).toEqual(Array.from({ length: 20 }, (_, i) => (i % 2 ? 500 : 200)));
  });
});

describe('a validator that answers with an error', () => {
  it('gives that error code and description, kept within RFC 6749 §5.2\'s characters (quotes become \')', async () => {
    const res = await asTester({ grant_type: 'urn:test:refuses', scope: 'api1.read', code: 'invalid_target', description: 'Unknown tenant "acme".' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_target', error_description: "Unknown tenant 'acme'." });
  });

  it.each([
    ['invalid_request', 'The api_key parameter is missing.'],
    ['unauthorized_client', 'This client may not exchange keys.'],
    ['invalid_scope', 'Keys do not carry that scope.'],
  ])('gives %s with its description', async (code, description) => {
    const res = await asTester({ grant_type: 'urn:test:refuses', scope: 'api1.read', code, description });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: code, error_description: description });
  });

  it('gives invalid_grant with a default description when the validator gave none', async () => {
    const res = await asTester({ grant_type: 'urn:test:refuses', scope: 'api1.read', code: 'invalid_grant' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_grant', error_description: 'The grant is invalid.' });
  });

  // A plugin written in plain JavaScript can return any string as `error`. The pipeline must
  // still answer in JSON: a misbehaving validator is the server's fault, so server_error.
  it('that is no token-request error code gives a JSON server_error, not a crash of the error handler', async () => {
    const raw = await fetch(`${server.url}/connect/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from('tester:tester-secret').toString('base64')}` },
      body: 'grant_type=urn%3Atest%3Arefuses&scope=api1.read&code=no_such_code',
    });
    expect(raw.status).toBe(500);
    expect(raw.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await raw.json()).toEqual({ error: 'server_error', error_description: 'An unexpected error occurred.' });
  });
});
