/**
 * private_key_jwt (RFC 7523, RFC 10070 audience) over HTTP against the real service with the
 * first-party plugin folders: clients holding certificates and JWKs get tokens; every broken
 * assertion is the same 401 invalid_client to the caller, with the reason in the log under the
 * request's id and never the assertion itself. It works at the token, revocation and
 * introspection endpoints, and discovery advertises it.
 */
import { randomUUID } from 'node:crypto';
import { SignJWT, createRemoteJWKSet, jwtVerify, type JWTHeaderParameters, type JWTPayload } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SecretConfig, UserConfig } from '../../src/config/schema.js';
import { hashSecret } from '../../src/sdk/hash.js';
import { basic, firstPartyPlugins, postForm, startServer, type TestServer } from '../support/server.js';
import { certificateOf, hmacToken, makeKey, publicJwk, rawToken, type TestKey } from '../plugins/private-key-jwt/helpers.js';

const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
const DAY = 86_400_000;
const failed = { error: 'invalid_client', error_description: 'Client authentication failed.' };

const keys = {} as Record<'rsa' | 'rsaOther' | 'ec' | 'ecOther' | 'ed' | 'api', TestKey>;
const sent: string[] = [];

let server: TestServer;
let compatServer: TestServer;

async function certificate(key: TestKey, notBefore: number, notAfter: number, description?: string): Promise<SecretConfig> {
  const der = await certificateOf(key, { notBefore, notAfter });
  return { type: 'X509CertificateBase64', value: Buffer.from(der).toString('base64'), ...(description ? { description } : {}) };
}

const jwk = (key: TestKey, extra: Partial<SecretConfig> = {}): SecretConfig => ({ type: 'JsonWebKey', value: JSON.stringify(publicJwk(key)), ...extra });

const client = (clientId: string, clientSecrets: SecretConfig[], extra: Record<string, unknown> = {}) => ({
  clientId,
  clientSecrets,
  allowedGrantTypes: ['client_credentials'],
  allowedScopes: ['api1.read'],
  ...extra,
});

async function config(): Promise<UserConfig> {
  const now = Date.now();
  const valid = (key: TestKey) => certificate(key, now - DAY, now + 365 * DAY);
  return {
    apiScopes: [{ name: 'api1.read' }],
    apiResources: [{ name: 'api1', scopes: ['api1.read'], secrets: [{ value: hashSecret('api1-secret') }, jwk(keys.api)] }],
    clients: [
      client('rsa-app', [await valid(keys.rsa)]),
      client('ec-app', [jwk(keys.ec)]),
      client('ed-app', [await valid(keys.ed)]),
      client('ref-app', [jwk(keys.ec)], { accessTokenType: 'reference' }),
      client('compat-app', [jwk(keys.ec)], { properties: { 'privateKeyJwt.audience': 'compat' } }),
      // The first secret's definition has expired; the second is live.
      client('rotating-app', [jwk(keys.ecOther, { expiration: new Date(now - DAY).toISOString() }), jwk(keys.ec)]),
      client('expired-key-app', [jwk(keys.ec, { expiration: new Date(now - DAY).toISOString() })]),
      client('old-cert-app', [await certificate(keys.rsa, now - 30 * DAY, now - DAY, 'laptop certificate')]),
      client('secret-app', [{ value: hashSecret('secret-app-secret') }]),
    ],
  };
}

beforeAll(async () => {
  const kinds = { rsa: 'RSA', rsaOther: 'RSA', ec: 'P-256', ecOther: 'P-256', ed: 'Ed25519', api: 'P-256' } as const;
  await Promise.all(Object.entries(kinds).map(async ([name, kind]) => (keys[name as keyof typeof keys] = await makeKey(kind))));
  const user = await config();
  [server, compatServer] = await Promise.all([
    startServer(user),
    startServer({ ...user, plugins: { 'private-key-jwt': { audience: 'compat' } } }),
  ]);
});

afterAll(async () => {
  await Promise.all([server?.close(), compatServer?.close()]);
});

const nowS = () => Math.floor(Date.now() / 1000);

/** Claims a well-behaved client sends: iss = sub = the client, aud = the issuer, 60 s, a fresh jti. */
function claims(clientId: string, on: TestServer = server, overrides: Record<string, unknown> = {}): JWTPayload {
  const iat = nowS();
  return { iss: clientId, sub: clientId, aud: on.url, iat, exp: iat + 60, jti: randomUUID(), ...overrides };
}

async function sign(key: TestKey, alg: string, payload: JWTPayload, header: Partial<JWTHeaderParameters> = {}): Promise<string> {
  return new SignJWT(payload).setProtectedHeader({ ...header, alg }).sign(key.privateKey);
}

type Reply = Awaited<ReturnType<typeof postForm>>;

function post(on: TestServer, path: string, assertion: string, params: Record<string, string> = {}): Promise<Reply> {
  sent.push(assertion);
  return postForm(`${on.url}${path}`, { client_assertion_type: JWT_BEARER, client_assertion: assertion, ...params });
}

const token = (assertion: string, on: TestServer = server, params: Record<string, string> = {}) =>
  post(on, '/connect/token', assertion, { grant_type: 'client_credentials', ...params });

/** The log line of the request that got `reply`, found by its request id. */
function rejection(on: TestServer, reply: Reply): Record<string, unknown> | undefined {
  const id = reply.headers.get('x-request-id');
  expect(id).toEqual(expect.any(String));
  return on.logs.find((l) => l.reqId === id && l.msg === 'request rejected');
}

/** 401 invalid_client, exactly, with no challenge (no Authorization header was used); the log says why. */
function expectRejected(reply: Reply, reason: string | RegExp, on: TestServer = server, body: object = failed): void {
  expect({ status: reply.status, body: reply.body }).toEqual({ status: 401, body });
  expect(reply.headers.get('www-authenticate')).toBeNull();
  expect(reply.headers.get('cache-control')).toBe('no-store');
  const line = rejection(on, reply);
  expect(line, 'a log line for the rejected request').toBeDefined();
  expect(line).toMatchObject({ error: 'invalid_client', status: 401 });
  if (typeof reason === 'string') expect(line!.detail).toContain(reason);
  else expect(line!.detail).toMatch(reason);
}

function expectToken(reply: Reply, clientId: string): string {
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  expect(reply.body).toMatchObject({ token_type: 'Bearer', scope: 'api1.read' });
  const accessToken = reply.body.access_token as string;
  if (accessToken.includes('.')) {
    const payload = JSON.parse(Buffer.from(accessToken.split('.')[1]!, 'base64url').toString()) as JWTPayload;
    expect(payload).toMatchObject({ sub: clientId, client_id: clientId });
  }
  return accessToken;
}

describe('clients that authenticate with a signed assertion', () => {
  it.each([
    ['an RSA certificate', 'rsa-app', 'rsa', 'RS256'],
    ['an RSA certificate', 'rsa-app', 'rsa', 'PS256'],
    ['a P-256 JWK', 'ec-app', 'ec', 'ES256'],
    ['an Ed25519 certificate', 'ed-app', 'ed', 'EdDSA'],
  ] as const)('get a token with %s and %s', async (_what, clientId, key, alg) => {
    const accessToken = expectToken(await token(await sign(keys[key], alg, claims(clientId))), clientId);
    const jwks = createRemoteJWKSet(new URL(`${server.url}/.well-known/openid-configuration/jwks`));
    await expect(jwtVerify(accessToken, jwks, { issuer: server.url, audience: 'api1', typ: 'at+jwt' })).resolves.toBeTruthy();
  });

  it('may also send client_id when it equals the assertion sub', async () => {
    expectToken(await token(await sign(keys.ec, 'ES256', claims('ec-app')), server, { client_id: 'ec-app' }), 'ec-app');
  });

  it('accept an assertion typed JWT, in any case', async () => {
    expectToken(await token(await sign(keys.ec, 'ES256', claims('ec-app'), { typ: 'jwt' })), 'ec-app');
  });

  it('accept an assertion typed client-authentication+jwt with the issuer as audience', async () => {
    const assertion = await sign(keys.ec, 'ES256', claims('ec-app'), { typ: 'client-authentication+jwt' });
    expectToken(await token(assertion), 'ec-app');
  });

  it('authenticate with a live secret when another secret definition of the client has expired', async () => {
    expectToken(await token(await sign(keys.ec, 'ES256', claims('rotating-app'))), 'rotating-app');
  });
});

describe('every broken assertion is 401 invalid_client, with the reason only in the log', () => {
  const ec = (overrides: Record<string, unknown>) => sign(keys.ec, 'ES256', claims('ec-app', server, overrides));

  it.each<[string, () => Promise<string>, string | RegExp]>([
    ['alg none', async () => rawToken({ alg: 'none', typ: 'JWT' }, claims('rsa-app')), 'alg "none" is not allowed'],
    [
      'HS256 keyed with the certificate’s public key bytes (key confusion)',
      async () => hmacToken(keys.rsa.publicKey.export({ format: 'pem', type: 'spki' }) as string, claims('rsa-app')),
      'alg "HS256" is not allowed',
    ],
    ['an aud of another server', () => ec({ aud: 'https://other.example' }), 'is not the issuer identifier (strict audience'],
    ['an aud array without our issuer', () => ec({ aud: ['https://other.example', 'https://another.example'] }), 'is not a single value'],
    ['a one-member aud array of another server', () => ec({ aud: ['https://other.example'] }), 'is not the issuer identifier'],
    ['an aud array holding our issuer and another value', () => ec({ aud: [server.url, 'https://other.example'] }), 'is not a single value'],
    ['the token endpoint URL as aud under the strict default', () => ec({ aud: `${server.url}/connect/token` }), 'is not the issuer identifier (strict audience'],
    ['no exp', () => ec({ exp: undefined }), 'exp is missing'],
    ['an expired assertion', () => ec({ iat: nowS() - 600, exp: nowS() - 300 }), /^private_key_jwt for "ec-app": expired at /],
    ['a lifetime over the maximum', () => ec({ exp: nowS() + 7200 }), 'exceeds maxLifetime 3600s'],
    ['nbf in the future', () => ec({ nbf: nowS() + 600 }), 'not valid before'],
    ['iat in the future', () => ec({ iat: nowS() + 600, exp: nowS() + 660 }), 'issued in the future'],
    ['iss other than sub', () => ec({ iss: 'someone-else' }), 'iss "someone-else" is not the client id "ec-app"'],
    ['no jti', () => ec({ jti: undefined }), 'jti is missing'],
    ['a tampered payload', async () => {
      const [header, , signature] = (await ec({})).split('.');
      const forged = Buffer.from(JSON.stringify(claims('ec-app', server, { scope: 'admin' }))).toString('base64url');
      return `${header}.${forged}.${signature}`;
    }, 'signature does not verify'],
    [
      'the sub of another client, signed with this client’s key',
      () => sign(keys.ed, 'EdDSA', claims('ed-app', server, { sub: 'rsa-app' })),
      'private_key_jwt for "rsa-app": no key of the client fits alg EdDSA',
    ],
    ['a certificate whose key is not the signing key', () => sign(keys.rsaOther, 'RS256', claims('rsa-app')), 'signature does not verify'],
    ['a JWK secret of the wrong key type for the alg', () => sign(keys.rsa, 'RS256', claims('ec-app')), 'no key of the client fits alg RS256 (keys: EC P-256)'],
    ['an expired certificate', () => sign(keys.rsa, 'RS256', claims('old-cert-app')), 'certificate of secret "laptop certificate" expired at'],
    ['a key whose secret definition has expired', () => sign(keys.ecOther, 'ES256', claims('rotating-app')), 'signature does not verify'],
    ['a client whose only key secret definition has expired', () => sign(keys.ec, 'ES256', claims('expired-key-app')), 'no unexpired secret of a fitting type'],
    ['a client with no key secret', () => sign(keys.ec, 'ES256', claims('secret-app')), 'no secret of a fitting type'],
    ['an unknown client', () => sign(keys.ec, 'ES256', claims('nobody')), 'unknown client'],
    ['something that is not a JWT', async () => 'not-a-jwt', 'client_assertion is not a JWT'],
    // RFC 8725 §3.11: a JWT of another kind, however well signed, is not a client assertion.
    ['an assertion typed at+jwt (an access token\u2019s type)', () => sign(keys.ec, 'ES256', claims('ec-app'), { typ: 'at+jwt' }), 'typ "at+jwt" is not a client authentication type'],
    ['an assertion typed logout+jwt', () => sign(keys.ec, 'ES256', claims('ec-app'), { typ: 'logout+jwt' }), 'typ "logout+jwt" is not a client authentication type'],
  ])('%s', async (_case, make, reason) => {
    expectRejected(await token(await make()), reason);
  });

  it('a client_id that differs from the assertion sub', async () => {
    const reply = await token(await sign(keys.ec, 'ES256', claims('ec-app')), server, { client_id: 'rsa-app' });
    expectRejected(reply, 'client_id "rsa-app" differs from the assertion\'s sub "ec-app"');
  });

  it('an unknown client_assertion_type', async () => {
    const reply = await postForm(`${server.url}/connect/token`, {
      grant_type: 'client_credentials',
      client_assertion_type: 'urn:example:other',
      client_assertion: await sign(keys.ec, 'ES256', claims('ec-app')),
    });
    expectRejected(reply, 'unsupported client_assertion_type');
  });

  it('a replayed assertion: its jti is single-use, at any endpoint', async () => {
    const assertion = await sign(keys.ec, 'ES256', claims('ref-app'));
    expectToken(await token(assertion), 'ref-app');
    expectRejected(await token(assertion), /jti "[\w-]+" was already used \(replay\)/);
    const atRevocation = await post(server, '/connect/revocation', assertion, { token: 'x'.repeat(43) });
    expectRejected(atRevocation, 'was already used (replay)');
  });

  it('never writes an assertion into the log', () => {
    expect(sent.length).toBeGreaterThan(25);
    const log = server.logText() + compatServer.logText();
    for (const assertion of sent) {
      expect(log).not.toContain(assertion);
      const signature = assertion.split('.')[2];
      if (signature) expect(log).not.toContain(signature);
    }
  });
});

describe('audience compatibility (RFC 10070)', () => {
  const tokenUrl = (on: TestServer) => `${on.url}/connect/token`;

  it('accepts the token endpoint URL for a client whose property says compat', async () => {
    expectToken(await token(await sign(keys.ec, 'ES256', claims('compat-app', server, { aud: tokenUrl(server) }))), 'compat-app');
  });

  it('accepts the token endpoint URL for every client when the plugin option says compat', async () => {
    const assertion = await sign(keys.ec, 'ES256', claims('ec-app', compatServer, { aud: tokenUrl(compatServer) }));
    expectToken(await token(assertion, compatServer), 'ec-app');
  });

  it('still refuses another endpoint’s URL at the token endpoint in compat mode', async () => {
    const assertion = await sign(keys.ec, 'ES256', claims('ec-app', compatServer, { aud: `${compatServer.url}/connect/revocation` }));
    expectRejected(await token(assertion, compatServer), 'compat audience', compatServer);
  });

  it('holds an assertion typed client-authentication+jwt to the issuer, whatever the setting', async () => {
    const typ = { typ: 'client-authentication+jwt' };
    expectRejected(
      await token(await sign(keys.ec, 'ES256', claims('compat-app', server, { aud: tokenUrl(server) }), typ)),
      'strict audience, by typ client-authentication+jwt',
    );
    expectRejected(
      await token(await sign(keys.ec, 'ES256', claims('ec-app', compatServer, { aud: tokenUrl(compatServer) }), typ), compatServer),
      'strict audience, by typ client-authentication+jwt',
      compatServer,
    );
  });

  it('stops start-up naming the client and the field for a bad or misspelt per-client setting', async () => {
    const withProperties = (properties: Record<string, string>): UserConfig => ({
      clients: [
        { clientId: 'fine', clientSecrets: [{ value: hashSecret('s') }], allowedGrantTypes: ['client_credentials'], allowedScopes: [] },
        { clientId: 'legacy', clientSecrets: [jwk(keys.ec)], allowedGrantTypes: ['client_credentials'], allowedScopes: [], properties },
      ],
    });
    const prefix = `plugin "private-key-jwt" (${firstPartyPlugins}/private-key-jwt): secretValidators[0] failed to start: plugin private-key-jwt: clients[1] ("legacy")`;
    await expect(startServer(withProperties({ 'privateKeyJwt.audience': 'lenient' }))).rejects.toMatchObject({
      code: 'PLUGIN_INVALID',
      message: `${prefix} properties["privateKeyJwt.audience"]: expected "strict" or "compat", found "lenient"`,
    });
    await expect(startServer(withProperties({ 'privateKeyJwt.Audience': 'compat' }))).rejects.toMatchObject({
      code: 'PLUGIN_INVALID',
      message: `${prefix} properties["privateKeyJwt.Audience"]: unknown private-key-jwt property; the only one is "privateKeyJwt.audience"`,
    });
  });
});

describe('other endpoints', () => {
  const asApi1 = (value: string) => postForm(`${server.url}/connect/introspect`, { token: value }, { authorization: basic('api1', 'api1-secret') });

  it('revocation: a client revokes its own reference token with an assertion', async () => {
    const reference = expectToken(await token(await sign(keys.ec, 'ES256', claims('ref-app'))), 'ref-app');
    expect((await asApi1(reference)).body).toMatchObject({ active: true, client_id: 'ref-app' });

    const revoked = await post(server, '/connect/revocation', await sign(keys.ec, 'ES256', claims('ref-app')), { token: reference });
    expect(revoked.status, JSON.stringify(revoked.body)).toBe(200);

    expect((await asApi1(reference)).body).toStrictEqual({ active: false });
  });

  it('revocation: a broken assertion is 401 invalid_client and revokes nothing', async () => {
    const reference = expectToken(await token(await sign(keys.ec, 'ES256', claims('ref-app'))), 'ref-app');
    const reply = await post(server, '/connect/revocation', await sign(keys.ec, 'ES256', claims('ref-app', server, { aud: 'https://other.example' })), { token: reference });
    expectRejected(reply, 'is not the issuer identifier');
    expect((await asApi1(reference)).body).toMatchObject({ active: true });
  });

  it('introspection: an API resource authenticates with an assertion signed by its key', async () => {
    const reference = expectToken(await token(await sign(keys.ec, 'ES256', claims('ref-app'))), 'ref-app');
    const reply = await post(server, '/connect/introspect', await sign(keys.api, 'ES256', claims('api1')), { token: reference });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ active: true, client_id: 'ref-app', scope: 'api1.read' });
    const wrongKey = await post(server, '/connect/introspect', await sign(keys.ec, 'ES256', claims('api1')), { token: reference });
    expectRejected(wrongKey, 'signature does not verify', server, {
      error: 'invalid_client',
      error_description: "API resource authentication failed: introspection takes an API resource's name and secret, not a client's.",
    });
  });
});

describe('discovery', () => {
  it('lists private_key_jwt and the assertion signing algorithms, never none or HMAC', async () => {
    const doc = (await (await fetch(`${server.url}/.well-known/openid-configuration`)).json()) as Record<string, string[]>;
    expect(doc.token_endpoint_auth_methods_supported).toContain('private_key_jwt');
    expect(doc.revocation_endpoint_auth_methods_supported).toContain('private_key_jwt');
    expect(doc.introspection_endpoint_auth_methods_supported).toContain('private_key_jwt');
    const algs = doc.token_endpoint_auth_signing_alg_values_supported;
    expect(algs).toEqual(expect.arrayContaining(['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA']));
    expect(algs!.filter((a) => a === 'none' || a.startsWith('HS'))).toEqual([]);
  });
});
