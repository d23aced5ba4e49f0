/**
 * Property tests for private_key_jwt (plugins/private-key-jwt): the assertion parser for
 * arbitrary parameters, and the token endpoint for arbitrary assertions, including ones signed
 * with the client's real key but with a claim or header broken. Never a token, never a 500,
 * never an unhandled rejection; always the same JSON `invalid_client` (or `invalid_request`).
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { base64url, decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAssertionParser } from '../../plugins/private-key-jwt/assertion-parser.js';
import { readOptions } from '../../plugins/private-key-jwt/options.js';
import { isOAuthError } from '../../src/oauth/errors.js';
import type { ParsedSecret } from '../../src/sdk/index.js';
import { postForm, startServer, type TestServer } from '../support/server.js';
import { JWT_BEARER, makeKey, publicJwk, sign, type TestKey } from '../plugins/private-key-jwt/helpers.js';

const encode = (value: unknown): string => base64url.encode(typeof value === 'string' ? value : JSON.stringify(value));

/** Strings that look more or less like a compact JWT, and some that do not at all. */
const headers = fc.oneof(
  fc.record({ alg: fc.oneof(fc.constantFrom('ES256', 'RS256', 'EdDSA', 'none', 'HS256'), fc.jsonValue()) }, { requiredKeys: [] }),
  fc.jsonValue(),
);
const subs = fc.oneof(fc.constantFrom('jwt-client', '', '__proto__', 'constructor'), fc.string(), fc.jsonValue());
const payloads = fc.oneof(
  fc.record({ sub: subs, iss: fc.oneof(fc.string(), fc.jsonValue()), aud: fc.jsonValue(), exp: fc.jsonValue(), jti: fc.jsonValue() }, { requiredKeys: [] }),
  fc.dictionary(fc.string(), fc.jsonValue()),
  fc.jsonValue(),
  fc.string(),
);
const jwtLike = fc.oneof(
  fc.tuple(headers, payloads, fc.string()).map(([h, p, s]) => `${encode(h)}.${encode(p)}.${encode(s)}`),
  fc.tuple(headers, payloads).map(([h, p]) => `${encode(h)}.${encode(p)}.`),
  fc.array(fc.base64String(), { minLength: 1, maxLength: 6 }).map((parts) => parts.join('.')),
  fc.tuple(headers, payloads, fc.string(), fc.string()).map(([h, p, a, b]) => `${encode(h)}.${encode(p)}.${encode(a)}.${encode(b)}.x`),
  fc.uint8Array({ maxLength: 60 }).map((bytes) => `${encode({ alg: 'ES256' })}.${base64url.encode(bytes)}.sig`),
  fc.string(),
);

describe('the assertion parser, for any parameters', () => {
  const parser = createAssertionParser({ options: readOptions({}) });
  const params = fc.record(
    {
      client_assertion_type: fc.oneof({ arbitrary: fc.constant(JWT_BEARER), weight: 4 }, fc.constant(''), fc.string()),
      client_assertion: fc.oneof(
        { arbitrary: fc.tuple(headers, fc.oneof(fc.constant('jwt-client'), fc.string()), fc.dictionary(fc.string(), fc.jsonValue())).map(
          ([h, sub, rest]) => `${encode(h)}.${encode({ ...rest, sub })}.${encode('sig')}`,
        ), weight: 3 },
        jwtLike,
        fc.constant(''),
      ),
      client_id: fc.oneof(fc.constantFrom('jwt-client', ''), fc.string()),
      client_secret: fc.string(),
    },
    { requiredKeys: [] },
  );

  it('finds nothing, finds exactly the client the assertion names, or throws invalid_client (with no assertion in its detail)', () => {
    const seen = { nothing: 0, found: 0, refused: 0 };
    fc.assert(
      fc.property(params, (p) => {
        const source = { params: new Map(Object.entries(p)), authorization: undefined, endpoint: 'token' };
        let parsed: ParsedSecret | undefined;
        try {
          parsed = parser.parse(source) as ParsedSecret | undefined;
        } catch (err) {
          expect(isOAuthError(err), String(err)).toBe(true);
          if (!isOAuthError(err)) return;
          expect(err.code).toBe('invalid_client');
          expect(err.status).toBe(401);
          const assertion = p.client_assertion ?? '';
          if (assertion.length >= 24) expect(err.logDetail ?? '').not.toContain(assertion);
          seen.refused++;
          return;
        }
        const type = p.client_assertion_type || undefined;
        const assertion = p.client_assertion || undefined;
        if (type === undefined && assertion === undefined) {
          expect(parsed).toBeUndefined();
          seen.nothing++;
          return;
        }
        // Anything present but incomplete or foreign must have thrown.
        expect(type).toBe(JWT_BEARER);
        expect(parsed).toEqual({ id: expect.any(String), credential: assertion, type: JWT_BEARER, decoded: expect.anything() });
        const claims = decodeJwt(assertion!);
        if (p.client_id && p.client_id !== claims.sub && claims.iss !== claims.sub) {
          // A token another party issued about a workload (issue 38) names its client by
          // client_id; that client's validators judge it (private_key_jwt's refuses it).
          expect(parsed!.id).toBe(p.client_id);
        } else {
          expect(parsed!.id).toBe(claims.sub);
          if (p.client_id) expect(p.client_id).toBe(parsed!.id);
        }
        expect(parsed!.id).not.toBe('');
        seen.found++;
      }),
      { numRuns: 3000 },
    );
    // Every branch was taken often enough to mean something.
    expect(Math.min(seen.nothing, seen.found, seen.refused), JSON.stringify(seen)).toBeGreaterThan(30);
  });
});

describe('the token endpoint with private_key_jwt, for any assertion', () => {
  let server: TestServer;
  let key: TestKey;
  let stranger: TestKey;
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown): void => void unhandled.push(reason);

  beforeAll(async () => {
    process.on('unhandledRejection', onUnhandled);
    [key, stranger] = await Promise.all([makeKey('P-256'), makeKey('P-256')]);
    server = await startServer({
      apiScopes: [{ name: 'api1.read' }],
      apiResources: [{ name: 'api1', scopes: ['api1.read'] }],
      clients: [
        {
          clientId: 'jwt-client', clientSecrets: [{ type: 'JsonWebKey', value: JSON.stringify(publicJwk(key)) }],
          allowedGrantTypes: ['client_credentials'], allowedScopes: ['api1.read'],
        },
      ],
    });
  });
  afterAll(async () => {
    await server?.close();
    process.off('unhandledRejection', onUnhandled);
  });

  const now = () => Math.floor(Date.now() / 1000);
  const goodClaims = (): Record<string, unknown> => ({ iss: 'jwt-client', sub: 'jwt-client', aud: server.url, iat: now(), exp: now() + 60, jti: randomUUID() });

  async function present(assertion: string, extra: Record<string, string> = {}) {
    return postForm(`${server.url}/connect/token`, { grant_type: 'client_credentials', client_assertion_type: JWT_BEARER, client_assertion: assertion, ...extra });
  }

  function expectRefused(res: Awaited<ReturnType<typeof present>>): void {
    expect(res.status === 401 || res.status === 400, JSON.stringify(res.body)).toBe(true);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body.access_token).toBeUndefined();
    expect(res.body).toEqual(
      res.status === 401
        ? { error: 'invalid_client', error_description: 'Client authentication failed.' }
        : { error: 'invalid_request', error_description: expect.any(String) },
    );
  }

  it('accepts a well-formed assertion once (so the refusals below are about the assertion)', async () => {
    const assertion = await sign(key, 'ES256', goodClaims());
    expect((await present(assertion)).status).toBe(200);
    expectRefused(await present(assertion));
  });

  it('refuses arbitrary assertions that name the client', async () => {
    const named = fc.oneof(
      jwtLike,
      fc.tuple(headers, fc.dictionary(fc.string(), fc.jsonValue()), fc.string()).map(
        ([h, p, s]) => `${encode(h)}.${encode({ ...p, sub: 'jwt-client', iss: 'jwt-client' })}.${encode(s)}`,
      ),
    );
    await fc.assert(
      fc.asyncProperty(named, fc.option(fc.constantFrom('jwt-client', 'other'), { nil: undefined }), async (assertion, clientId) => {
        expectRefused(await present(assertion, clientId ? { client_id: clientId } : {}));
      }),
      { numRuns: 300 },
    );
    expect(unhandled).toEqual([]);
  });

  type Breakage = (claims: Record<string, unknown>, header: Record<string, unknown>) => void;
  /** One way each to break an otherwise good assertion; the issuer is known once the server runs. */
  const breakages = (issuer: string): fc.Arbitrary<Breakage> => fc.oneof(
    fc.string().filter((s) => s !== issuer).map((aud): Breakage => (c) => void (c.aud = aud)),
    fc.array(fc.string(), { minLength: 2, maxLength: 3 }).map((extra): Breakage => (c) => void (c.aud = [c.aud, ...extra])),
    fc.string().filter((s) => s !== 'jwt-client').map((iss): Breakage => (c) => void (c.iss = iss)),
    fc.integer({ min: 61, max: 10_000_000 }).map((ago): Breakage => (c) => void (c.exp = now() - ago)),
    fc.integer({ min: 3_700, max: 10_000_000 }).map((ahead): Breakage => (c) => void (c.exp = now() + ahead)),
    fc.integer({ min: 62, max: 10_000_000 }).map((ahead): Breakage => (c) => void (c.nbf = now() + ahead)),
    fc.integer({ min: 62, max: 100_000 }).map((ahead): Breakage => (c) => void (c.iat = now() + ahead)),
    fc.oneof(fc.string().map((s) => s as unknown), fc.constant(null), fc.boolean(), fc.constant(Number.MAX_VALUE)).map((exp): Breakage => (c) => void (c.exp = exp)),
    fc.constantFrom('exp', 'jti', 'aud', 'iss').map((claim): Breakage => (c) => void delete c[claim]),
    fc.oneof(fc.constant(''), fc.integer(), fc.jsonValue().filter((v) => typeof v !== 'string')).map((jti): Breakage => (c) => void (c.jti = jti)),
    fc.string().map((kid): Breakage => (_c, h) => void (h.kid = kid)),
  );

  it('refuses assertions signed with the client’s key whose claims or header are broken', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(breakages(server.url), { minLength: 1, maxLength: 3 }), async (broken) => {
        const claims = goodClaims();
        const header: Record<string, unknown> = {};
        for (const b of broken) b(claims, header);
        expectRefused(await present(await sign(key, 'ES256', claims, header)));
      }),
      { numRuns: 200 },
    );
    expect(unhandled).toEqual([]);
  });

  it('refuses well-formed assertions signed with another key, or re-signed under another header', async () => {
    const forged = fc.oneof(
      fc.constant(async () => sign(stranger, 'ES256', goodClaims())),
      fc.constantFrom('none', 'HS256', 'RS256', 'EdDSA', 'ES384').map((alg) => async () => {
        const real = await sign(key, 'ES256', goodClaims());
        return `${encode({ alg })}.${real.split('.').slice(1).join('.')}`;
      }),
      fc.string({ minLength: 1, maxLength: 20 }).map((typ) => async () => {
        const real = await sign(key, 'ES256', goodClaims());
        return `${encode({ alg: 'ES256', typ })}.${real.split('.').slice(1).join('.')}`;
      }),
    );
    await fc.assert(
      fc.asyncProperty(forged, async (make) => expectRefused(await present(await make()))),
      { numRuns: 60 },
    );
    expect(unhandled).toEqual([]);
  });
});
