/**
 * Property tests over HTTP for each endpoint's own parameters, past client authentication:
 * the caller authenticates correctly and everything else is arbitrary. (The unauthenticated
 * case is test/properties/endpoints.property.integration.test.ts.) For any input: no 500, no token, no
 * unhandled rejection, and every error a JSON OAuth error with its documented status.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserConfig } from '../../src/config/schema.js';
import { hashPassword } from '../../src/oauth/password-hash.js';
import { hashSecret } from '../../src/sdk/hash.js';
import { basic, startServer, type TestServer } from '../support/server.js';

const deviceGrant = 'urn:ietf:params:oauth:grant-type:device_code';
const tokenExchange = 'urn:ietf:params:oauth:grant-type:token-exchange';
const accessTokenType = 'urn:ietf:params:oauth:token-type:access_token';

/** Every RFC 6749 §5.2 / RFC 7009 / RFC 8628 / RFC 8693 error the endpoints may answer, with its status. */
const errorStatus: Record<string, number[]> = {
  invalid_request: [400, 413, 415],
  invalid_client: [401],
  invalid_grant: [400],
  unauthorized_client: [400],
  unsupported_grant_type: [400],
  invalid_scope: [400],
  invalid_target: [400],
  unsupported_token_type: [400],
  authorization_pending: [400],
  slow_down: [400],
  access_denied: [400],
  expired_token: [400],
};

const config = async (): Promise<UserConfig> => ({
  apiScopes: [{ name: 'api1.read' }, { name: 'api1.write' }, { name: 'backend.read' }],
  apiResources: [
    { name: 'api1', scopes: ['api1.read', 'api1.write'], secrets: [{ value: hashSecret('api1-secret') }] },
    { name: 'backend', scopes: ['backend.read'] },
  ],
  identityResources: [{ name: 'openid', claims: ['sub'] }, { name: 'profile', claims: ['name'] }],
  // The real password is never among the generated values.
  users: [{ subjectId: 'sub-alice', username: 'alice', password: await hashPassword('alice-real-password-91', { ln: 4, r: 8, p: 1 }) }],
  clients: [
    {
      // Every grant that needs something secret besides the client's own credentials; no client_credentials.
      clientId: 'app', clientSecrets: [{ value: hashSecret('app-secret') }],
      allowedGrantTypes: ['password', 'refresh_token', deviceGrant, 'delegation', tokenExchange],
      allowedScopes: ['openid', 'profile', 'api1.read', 'api1.write', 'backend.read'], allowOfflineAccess: true,
      allowedSubjectTokenAudiences: ['api1', 'backend'],
    },
    { clientId: 'tv', requireClientSecret: false, allowedGrantTypes: [deviceGrant], allowedScopes: ['openid', 'api1.read'] },
  ],
  // Random failures from one address must not turn into 429s mid-run.
  authThrottle: { pairThreshold: 100_000, addressThreshold: 100_000 },
});

const names = fc.oneof(
  { arbitrary: fc.constantFrom(
    'grant_type', 'scope', 'username', 'password', 'refresh_token', 'device_code', 'token', 'token_type_hint',
    'subject_token', 'subject_token_type', 'actor_token', 'actor_token_type', 'audience', 'resource', 'requested_token_type',
    'code', 'redirect_uri', 'client_id', 'a[]', 'a[b]', '__proto__', 'constructor',
  ), weight: 5 },
  fc.string({ maxLength: 20 }),
);
const b64url = fc.base64String({ minLength: 4, maxLength: 60 }).map((s) => s.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''));
const values = fc.oneof(
  fc.string({ maxLength: 60 }),
  fc.constantFrom(
    'password', 'refresh_token', deviceGrant, 'delegation', tokenExchange, 'client_credentials', 'authorization_code',
    'alice', 'api1', 'backend', 'api1.read', 'openid offline_access', 'openid profile api1.read', 'offline_access', 'backend.read',
    accessTokenType, 'urn:ietf:params:oauth:token-type:refresh_token', 'urn:ietf:params:oauth:token-type:jwt', 'access_token', 'app', 'tv',
  ),
  // Token-shaped: JWT-like and reference-handle-like values.
  fc.tuple(b64url, b64url, b64url).map(([a, b, c]) => `${a}.${b}.${c}`),
  fc.stringMatching(/^[\w-]{43}$/),
  fc.stringMatching(/^[0-9a-f]{12}[\w-]{43}$/),
  fc.string({ minLength: 2_040, maxLength: 2_060 }),
);
const form = (required: Array<[string, fc.Arbitrary<string>]> = []) =>
  fc
    .tuple(fc.array(fc.tuple(names, values), { maxLength: 8 }), ...required.map(([n, v]) => v.map((value) => [n, value] as [string, string])))
    .map(([pairs, ...fixed]) => [...fixed, ...pairs].map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&'));

let server: TestServer;
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown): void => void unhandled.push(reason);

beforeAll(async () => {
  process.on('unhandledRejection', onUnhandled);
  server = await startServer(await config());
});
afterAll(async () => {
  await server?.close();
  process.off('unhandledRejection', onUnhandled);
});

interface Answer {
  status: number;
  contentType: string | null;
  cacheControl: string | null;
  text: string;
  json: Record<string, unknown> | undefined;
}

async function send(path: string, body: string, headers: Record<string, string>): Promise<Answer> {
  const res = await fetch(server.url + path, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body });
  const text = await res.text();
  let json: Record<string, unknown> | undefined;
  try {
    json = text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>);
  } catch {
    json = undefined;
  }
  return { status: res.status, contentType: res.headers.get('content-type'), cacheControl: res.headers.get('cache-control'), text, json };
}

/** A JSON OAuth error with a known code, the status that code has, and no token of any kind. */
function expectOAuthError(answer: Answer): void {
  expect(answer.status, answer.text).toBeLessThan(500);
  expect(answer.contentType).toMatch(/^application\/json/);
  expect(answer.cacheControl).toBe('no-store');
  const body = answer.json ?? {};
  expect(Object.keys(body).sort(), answer.text).toEqual(body.error_description === undefined ? ['error'] : ['error', 'error_description']);
  expect(errorStatus[body.error as string], answer.text).toContain(answer.status);
  if (body.error_description !== undefined) expect(typeof body.error_description).toBe('string');
}

const app = { authorization: basic('app', 'app-secret') };

describe('for any parameters from an authenticated caller', () => {
  it('the token endpoint issues nothing: every grant answers a JSON OAuth error', async () => {
    const grant = fc.constantFrom('password', 'refresh_token', deviceGrant, 'delegation', tokenExchange, 'client_credentials', 'implicit');
    const seen = new Set<unknown>();
    await fc.assert(
      fc.asyncProperty(form([['grant_type', grant]]), async (body) => {
        const answer = await send('/connect/token', body, app);
        expect(answer.json?.access_token, answer.text).toBeUndefined();
        expectOAuthError(answer);
        seen.add(answer.json?.error);
      }),
      { numRuns: 400 },
    );
    // The grants themselves were reached, not only the checks before them.
    expect([...seen].sort()).toEqual(expect.arrayContaining(['invalid_grant', 'invalid_request', 'invalid_scope', 'unauthorized_client', 'unsupported_grant_type']));
    expect(unhandled).toEqual([]);
  });

  it('introspection answers { active: false } or invalid_request, never an active token', async () => {
    await fc.assert(
      fc.asyncProperty(form(), async (body) => {
        const answer = await send('/connect/introspect', body, { authorization: basic('api1', 'api1-secret') });
        if (answer.status === 200) expect(answer.json).toEqual({ active: false });
        else expectOAuthError(answer);
      }),
      { numRuns: 300 },
    );
    expect(unhandled).toEqual([]);
  });

  it('revocation answers 200 with an empty body or a JSON OAuth error', async () => {
    await fc.assert(
      fc.asyncProperty(form(), async (body) => {
        const answer = await send('/connect/revocation', body, app);
        if (answer.status === 200) expect(answer.text).toBe('');
        else expectOAuthError(answer);
      }),
      { numRuns: 300 },
    );
    expect(unhandled).toEqual([]);
  });

  it('device authorization answers exactly the RFC 8628 §3.2 fields, for allowed scopes only, or a JSON OAuth error', async () => {
    const allowed: Record<string, string[]> = { tv: ['openid', 'api1.read'], app: ['openid', 'profile', 'api1.read', 'api1.write', 'backend.read', 'offline_access'] };
    const caller = fc.constantFrom<[string, Record<string, string>, string]>(['tv', {}, 'client_id=tv&'], ['app', app, '']);
    await fc.assert(
      fc.asyncProperty(caller, form(), async ([clientId, headers, prefix], body) => {
        const answer = await send('/connect/deviceauthorization', prefix + body, headers);
        expect(answer.json?.access_token).toBeUndefined();
        if (answer.status !== 200) return expectOAuthError(answer);
        expect(Object.keys(answer.json!).sort()).toEqual(['device_code', 'expires_in', 'interval', 'user_code', 'verification_uri', 'verification_uri_complete']);
        const scope = new URLSearchParams(prefix + body).get('scope');
        for (const s of (scope ?? '').split(' ').filter(Boolean)) expect(allowed[clientId]).toContain(s);
      }),
      { numRuns: 300 },
    );
    expect(unhandled).toEqual([]);
  });
});

describe('for any request framing', () => {
  const paths = fc.constantFrom('/connect/token', '/connect/introspect', '/connect/revocation', '/connect/deviceauthorization');
  const contentTypes = fc.oneof(
    fc.constantFrom(
      'application/x-www-form-urlencoded', 'application/x-www-form-urlencoded; charset=utf-8', 'application/x-www-form-urlencoded; charset=latin1',
      'application/x-www-form-urlencoded; charset=utf-16', 'application/json', 'text/plain', 'multipart/form-data; boundary=x', '',
    ),
    fc.string({ maxLength: 40 }).filter((s) => /^[\x20-\x7e]*$/.test(s)),
  );
  // Bodies are never compressed, whatever Content-Encoding claims.
  const encodings = fc.option(fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'x-unknown', 'gzip, gzip'), { nil: undefined });
  const bodies = fc.oneof(form([['grant_type', fc.constant('password')]]), fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b).toString('latin1')), fc.json());

  it('every endpoint answers a JSON OAuth error, whatever the content type, encoding and bytes', async () => {
    await fc.assert(
      fc.asyncProperty(paths, contentTypes, encodings, bodies, async (path, contentType, encoding, body) => {
        const headers = { ...app, 'content-type': contentType, ...(encoding === undefined ? {} : { 'content-encoding': encoding }) };
        const res = await fetch(server.url + path, { method: 'POST', headers, body: Buffer.from(body, 'latin1') });
        const text = await res.text();
        const answer: Answer = {
          status: res.status, contentType: res.headers.get('content-type'), cacheControl: res.headers.get('cache-control'), text,
          json: text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>),
        };
        expect(answer.json?.access_token).toBeUndefined();
        if (answer.status === 200) expect(path === '/connect/revocation' || path === '/connect/introspect' || path === '/connect/deviceauthorization').toBe(true);
        else expectOAuthError(answer);
      }),
      { numRuns: 300 },
    );
    expect(unhandled).toEqual([]);
  });
});
