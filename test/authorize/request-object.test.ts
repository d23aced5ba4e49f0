/**
 * Signed request objects (RFC 9101) with plain values: the reader with the private-key-jwt
 * plugin's verifier (the keys a client registered), a memory store for the `jti`, a fixed clock.
 * Each refusal is its own case and says which check failed (the log detail); the client always
 * hears `invalid_request_object`.
 */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { createRequestObjectReader, type RequestObjectReader } from '../../src/authorize/request-object.js';
import { createRequestValidator, RedirectableError, UntrustedRequestError } from '../../src/authorize/authorization-request.js';
import { resolveConfig } from '../../src/config/resolve.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import { repeatedValues } from '../../src/oauth/form-params.js';
import { signCompactJws, type OAuthError } from '../../src/sdk/index.js';
import { createRequestObjectVerifier } from '../../plugins/private-key-jwt/request-object-verifier.js';

const ISSUER = 'https://auth.example.com';
const NOW = Date.UTC(2030, 0, 1, 12, 0, 0);
const NOW_S = NOW / 1000;
const clock = { now: () => NOW };

const clientKey = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const otherKey = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const publicJwk = JSON.stringify({ ...clientKey.publicKey.export({ format: 'jwk' }), kid: 'k1' });

const config = resolveConfig({
  issuer: ISSUER,
  identityResources: [{ name: 'openid', claims: ['sub'] }],
  clients: [
    {
      clientId: 'app', clientSecrets: [{ type: 'JsonWebKey', value: publicJwk }], allowedGrantTypes: ['authorization_code'],
      allowedScopes: ['openid'], redirectUris: ['https://app.example/cb'], requireRequestObject: true,
    },
    { clientId: 'plain', clientSecrets: [{ value: 'x' }], allowedGrantTypes: ['authorization_code'], allowedScopes: ['openid'], redirectUris: ['https://plain.example/cb'] },
  ],
}, '/');
const app = config.clients[0]!;
const plain = config.clients[1]!;
const clients = new Map(config.clients.map((c) => [c.clientId, c]));

const goodClaims = () => ({
  iss: 'app', aud: ISSUER, exp: NOW_S + 300, nbf: NOW_S - 5, iat: NOW_S - 5, jti: `jti-${Math.random()}`,
  client_id: 'app', response_type: 'code', redirect_uri: 'https://app.example/cb', scope: 'openid', state: 'inner-state',
  code_challenge: 'a'.repeat(43), code_challenge_method: 'S256', max_age: 60,
});

function signed(claims: object, header: Record<string, unknown> = {}, key: KeyObject = clientKey.privateKey, alg = 'ES256'): string {
  return signCompactJws(key, alg)({ alg, typ: 'oauth-authz-req+jwt', kid: 'k1', ...header }, claims);
}

let read: RequestObjectReader;
beforeEach(() => {
  read = createRequestObjectReader({
    config: { issuer: ISSUER, requestObjects: config.requestObjects },
    verifiers: [createRequestObjectVerifier({ config: { clients: config.clients, apiResources: [] } as never, clock })],
    store: createMemoryStore(clock),
    clock,
  });
});

async function refusal(requestObject: string, client = app): Promise<OAuthError> {
  try {
    await read(requestObject, client);
  } catch (err) {
    return err as OAuthError;
  }
  throw new Error('expected a refusal');
}

describe('a signed request object', () => {
  it('gives its own parameters, the JWT claims left out, numbers as text', async () => {
    const params = await read(signed(goodClaims()), app);
    expect(Object.fromEntries(params)).toEqual({
      client_id: 'app', response_type: 'code', redirect_uri: 'https://app.example/cb', scope: 'openid', state: 'inner-state',
      code_challenge: 'a'.repeat(43), code_challenge_method: 'S256', max_age: '60',
    });
  });

  it('carries several resources (RFC 8707) as a JSON array, read as the repeated parameter', async () => {
    const params = await read(signed({ ...goodClaims(), resource: ['https://a.example/', 'https://b.example/'] }), app);
    expect(repeatedValues(params, 'resource')).toEqual(['https://a.example/', 'https://b.example/']);
    await expect(read(signed({ ...goodClaims(), resource: ['https://a.example/', 7] }), app)).rejects.toMatchObject({ code: 'invalid_request_object' });
  });

  it('is accepted without typ, or typed JWT (RFC 9101 §10.8 leaves it to the server)', async () => {
    await expect(read(signed(goodClaims(), { typ: undefined }), app)).resolves.toBeInstanceOf(Map);
    await expect(read(signed(goodClaims(), { typ: 'JWT' }), app)).resolves.toBeInstanceOf(Map);
    await expect(read(signed(goodClaims(), { typ: 'application/oauth-authz-req+jwt' }), app)).resolves.toBeInstanceOf(Map);
  });

  it('without jti is accepted (RFC 9101 does not require one), and again', async () => {
    const { jti: _jti, ...claims } = goodClaims();
    const object = signed(claims);
    await expect(read(object, app)).resolves.toBeInstanceOf(Map);
    await expect(read(object, app)).resolves.toBeInstanceOf(Map);
  });
});

describe('refusals: invalid_request_object, the log says which check', () => {
  const cases: Array<[string, () => string, string, RegExp]> = [
    ['a bad signature', () => signed(goodClaims(), {}, otherKey.privateKey), 'The request object is invalid.', /signature does not verify/],
    ['alg none', () => `${Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url')}.${Buffer.from(JSON.stringify(goodClaims())).toString('base64url')}.`, 'The request object must be signed.', /alg none/],
    ['an HMAC alg', () => `${Buffer.from(JSON.stringify({ alg: 'HS256' })).toString('base64url')}.${Buffer.from(JSON.stringify(goodClaims())).toString('base64url')}.c2ln`, 'The request object\'s signing algorithm is not supported.', /alg "HS256"/],
    ['a wrong aud', () => signed({ ...goodClaims(), aud: 'https://other.example' }), 'The request object is invalid.', /aud "https:\/\/other.example" does not name the issuer/],
    ['a wrong iss', () => signed({ ...goodClaims(), iss: 'someone' }), 'The request object is invalid.', /iss "someone" is not the client/],
    ['an expired object', () => signed({ ...goodClaims(), exp: NOW_S - 60, nbf: NOW_S - 120 }), 'The request object has expired.', /expired at/],
    ['no exp', () => { const { exp: _exp, ...claims } = goodClaims(); return signed(claims); }, 'The request object is invalid.', /exp is missing/],
    ['an nbf in the future', () => signed({ ...goodClaims(), nbf: NOW_S + 120, exp: NOW_S + 300 }), 'The request object is not yet valid.', /nbf .* is in the future/],
    ['a lifetime over an hour', () => signed({ ...goodClaims(), nbf: NOW_S, exp: NOW_S + 7200 }), 'The request object lives too long.', /lifetime 7200 s/],
    ['a client_id other than the request\'s', () => signed({ ...goodClaims(), client_id: 'plain' }), 'The client_id in the request object does not match the request.', /client_id "plain"/],
    ['another kind of JWT (typ)', () => signed(goodClaims(), { typ: 'client-authentication+jwt' }), 'The request object is invalid.', /typ "client-authentication\+jwt"/],
    ['an unknown kid', () => signed(goodClaims(), { kid: 'k2' }), 'The request object is invalid.', /no key of the client has kid "k2"/],
    ['a request_uri inside', () => signed({ ...goodClaims(), request_uri: 'https://x.example/r' }), 'The request object is invalid.', /contains request_uri/],
    ['a parameter that is an array', () => signed({ ...goodClaims(), scope: ['openid'] }), 'A parameter in the request object is not a string.', /"scope" is an array/],
    ['not a JWS', () => 'not.a-jws', 'The request object is invalid.', /malformed request object/],
  ];
  it.each(cases)('%s', async (_name, make, description, detail) => {
    const err = await refusal(make());
    expect(err.code).toBe('invalid_request_object');
    expect(err.description).toBe(description);
    expect(err.logDetail).toMatch(detail);
  });

  it('a replayed jti', async () => {
    const object = signed(goodClaims());
    await read(object, app);
    const err = await refusal(object);
    expect([err.code, err.description]).toEqual(['invalid_request_object', 'The request object was already used.']);
    expect(err.logDetail).toMatch(/was already used \(replay\)/);
  });

  it('a client with no key secret (an unknown key)', async () => {
    const err = await refusal(signed({ ...goodClaims(), iss: 'plain', client_id: 'plain' }), plain);
    expect([err.code, err.description]).toEqual(['invalid_request_object', 'The client has no registered key that could verify the request object.']);
  });

  it('a forged object burns no jti: the real one with the same jti still passes', async () => {
    const claims = goodClaims();
    await refusal(signed(claims, {}, otherKey.privateKey));
    await expect(read(signed(claims), app)).resolves.toBeInstanceOf(Map);
  });
});

describe('the validator with request objects (RFC 9101 §5, §6.3, §10.5)', () => {
  const validator = createRequestValidator({
    clients, scopeCatalog: { apiScopes: new Set(), identityScopes: new Set(['openid']) },
    requestObjects: (object, client) => read(object, client),
  });
  const outer = (request: string, extra: Record<string, string> = {}) => new Map(Object.entries({ client_id: 'app', request, ...extra }));

  it('uses only the object\'s parameters: the query\'s scope, state and redirect URI are ignored', async () => {
    const request = await validator.read(outer(signed(goodClaims()), { scope: 'openid api', state: 'outer', redirect_uri: 'https://evil.example/cb' }), { pushed: false });
    expect(request).toMatchObject({ clientId: 'app', redirectUri: 'https://app.example/cb', state: 'inner-state', scopes: ['openid'], maxAge: 60 });
  });

  it('a client that requires request objects is refused a plain request', async () => {
    const { iss: _iss, aud: _aud, exp: _exp, nbf: _nbf, iat: _iat, jti: _jti, max_age: _maxAge, ...query } = goodClaims();
    const err = await validator.read(new Map(Object.entries(query)), { pushed: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RedirectableError);
    expect((err as RedirectableError).error.toJSON()).toEqual({ error: 'invalid_request', error_description: 'This client must send a signed request object (request).' });
  });

  it('a refused object goes to the query\'s redirect URI when it is the client\'s, with the query\'s state', async () => {
    const err = await validator.read(outer(signed(goodClaims(), {}, otherKey.privateKey), { redirect_uri: 'https://app.example/cb', state: 'outer' }), { pushed: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RedirectableError);
    expect((err as RedirectableError).error.code).toBe('invalid_request_object');
    expect((err as RedirectableError).target).toEqual({ clientId: 'app', redirectUri: 'https://app.example/cb', responseMode: 'query', state: 'outer' });
  });

  it('a refused object without a registered redirect URI beside it is shown on the page', async () => {
    const err = await validator.read(outer(signed(goodClaims(), {}, otherKey.privateKey), { redirect_uri: 'https://evil.example/cb' }), { pushed: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UntrustedRequestError);
  });

  it('at PAR a refused object is the OAuth error itself', async () => {
    const err = await validator.read(outer(signed(goodClaims(), {}, otherKey.privateKey)), { pushed: true, authenticatedClient: app }).catch((e: unknown) => e);
    expect((err as OAuthError).code).toBe('invalid_request_object');
  });

  it('without a verifier (no private-key-jwt plugin) a request object is request_not_supported, at the redirect URI beside it', async () => {
    const without = createRequestValidator({ clients, scopeCatalog: { apiScopes: new Set(), identityScopes: new Set(['openid']) } });
    const err = await without.read(outer(signed(goodClaims()), { redirect_uri: 'https://app.example/cb', state: 'outer' }), { pushed: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RedirectableError);
    expect((err as RedirectableError).error.toJSON()).toEqual({ error: 'request_not_supported', error_description: 'Request objects are not supported.' });
  });

  it('without client_id beside the object the request is shown on the page', async () => {
    const err = await validator.read(new Map([['request', signed(goodClaims())]]), { pushed: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UntrustedRequestError);
  });
});
