/** Signature, algorithm and key selection rules of the assertion validator. */
import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { CompactSign, calculateJwkThumbprint } from 'jose';
import { createAssertionValidator } from '../../../plugins/private-key-jwt/assertion-validator.js';
import type { ApiResource, Client, Secret, SecretValidator } from 'svc/sdk';
import {
  DAY,
  NOW,
  certificateOf,
  certificateSecret,
  claimsFor,
  contextFor,
  hmacToken,
  jtiKey,
  jwkSecret,
  makeClient,
  makeDeps,
  makeKey,
  rawToken,
  secret,
  sign,
  type FakeStore,
  type KeyKind,
  type TestKey,
} from './helpers.js';

const keys = {} as Record<'rsa' | 'rsaPss' | 'rsa2' | 'p256' | 'p256b' | 'p384' | 'ed' | 'ed2', TestKey>;

beforeAll(async () => {
  const kinds: Array<[keyof typeof keys, KeyKind]> = [
    ['rsa', 'RSA'],
    ['rsaPss', 'RSA-PSS'],
    ['rsa2', 'RSA'],
    ['p256', 'P-256'],
    ['p256b', 'P-256'],
    ['p384', 'P-384'],
    ['ed', 'Ed25519'],
    ['ed2', 'Ed25519'],
  ];
  await Promise.all(kinds.map(async ([name, kind]) => (keys[name] = await makeKey(kind))));
});

async function setup(clients: Client[], pluginOptions: Record<string, unknown> = {}, apiResources: ApiResource[] = []) {
  const deps = makeDeps({ clients, pluginOptions, apiResources });
  const validator: SecretValidator = createAssertionValidator(deps);
  return { validator, store: deps.store as FakeStore };
}

/** One client "app" with `secrets`; validates `token` for it. */
async function validateFor(secrets: Secret[], token: string, pluginOptions: Record<string, unknown> = {}) {
  const client = makeClient('app', secrets);
  const { validator } = await setup([client], pluginOptions);
  return validator.validate(contextFor(client, token));
}

const fail = (reason: string) => ({ success: false, reason });

describe('accepted assertions', () => {
  const cases: Array<[keyof typeof keys, string]> = [
    ['rsa', 'RS256'],
    ['rsa', 'RS512'],
    ['rsa', 'PS256'],
    ['rsaPss', 'PS256'],
    ['p256', 'ES256'],
    ['p384', 'ES384'],
    ['ed', 'EdDSA'],
    ['ed', 'Ed25519'],
  ];

  it.each(cases)('%s key, %s, as a certificate', async (name, alg) => {
    const client = makeClient('app', [await certificateSecret(keys[name])]);
    const { validator, store } = await setup([client]);
    const claims = claimsFor('app');
    const result = await validator.validate(contextFor(client, await sign(keys[name], alg, claims)));
    expect(result).toMatchObject({ success: true });
    expect([...store.grants.keys()]).toEqual([jtiKey('app', claims.jti)]);
  });

  it.each(cases)('%s key, %s, as a JWK', async (name, alg) => {
    const result = await validateFor([jwkSecret(keys[name])], await sign(keys[name], alg, claimsFor('app')));
    expect(result).toMatchObject({ success: true });
  });

  it('for an API resource at the introspection endpoint', async () => {
    const api: ApiResource = { name: 'orders-api', scopes: ['orders'], secrets: [await certificateSecret(keys.p256)] };
    const { validator, store } = await setup([], {}, [api]);
    const claims = claimsFor('orders-api');
    const result = await validator.validate(contextFor(api, await sign(keys.p256, 'ES256', claims), 'introspection'));
    expect(result).toMatchObject({ success: true });
    expect(store.grants.get(jtiKey('orders-api', claims.jti))?.clientId).toBe('orders-api');
  });
});

describe('algorithm', () => {
  it('rejects alg none', async () => {
    const token = rawToken({ alg: 'none', typ: 'JWT' }, claimsFor('app'));
    expect(await validateFor([await certificateSecret(keys.rsa)], token)).toMatchObject(fail('alg "none" is not allowed'));
  });

  it('rejects a critical header extension, even with a valid signature', async () => {
    const token = await new CompactSign(new TextEncoder().encode(JSON.stringify(claimsFor('app'))))
      .setProtectedHeader({ alg: 'ES256', crit: ['urn:example:ext'], 'urn:example:ext': 1 })
      .sign(keys.p256.privateKey, { crit: { 'urn:example:ext': true } });
    expect(await validateFor([jwkSecret(keys.p256)], token)).toMatchObject(fail('malformed assertion: header has crit; no extension is understood'));
  });

  it('rejects a missing alg', async () => {
    const token = rawToken({ typ: 'JWT' }, claimsFor('app'), 'c2ln');
    expect(await validateFor([await certificateSecret(keys.rsa)], token)).toMatchObject(fail('alg undefined is not allowed'));
  });

  it('rejects HS256 keyed with the public key or certificate bytes (key confusion)', async () => {
    const certSecret = await certificateSecret(keys.rsa);
    const spkiDer = keys.rsa.publicKey.export({ format: 'der', type: 'spki' });
    const spkiPem = keys.rsa.publicKey.export({ format: 'pem', type: 'spki' }) as string;
    const certDer = Buffer.from(certSecret.value, 'base64');
    for (const bytes of [spkiDer, spkiPem, certDer, certSecret.value]) {
      const result = await validateFor([certSecret, jwkSecret(keys.rsa)], hmacToken(bytes, claimsFor('app')));
      expect(result).toMatchObject(fail('alg "HS256" is not allowed'));
    }
  });

  it('rejects an algorithm left out of the algorithms option', async () => {
    const token = await sign(keys.rsa, 'RS256', claimsFor('app'));
    expect(await validateFor([jwkSecret(keys.rsa)], token, { algorithms: ['ES256', 'PS256'] })).toMatchObject(fail('alg "RS256" is not allowed'));
  });

  it('rejects a JWK of the wrong key type for the alg', async () => {
    const token = await sign(keys.rsa, 'RS256', claimsFor('app'));
    expect(await validateFor([jwkSecret(keys.p256)], token)).toMatchObject(fail('no key of the client fits alg RS256 (keys: EC P-256)'));
  });

  it('rejects an EC key of another curve than the alg names', async () => {
    const token = rawToken({ alg: 'ES256' }, claimsFor('app'), 'c2ln');
    expect(await validateFor([await certificateSecret(keys.p384)], token)).toMatchObject(fail('no key of the client fits alg ES256 (keys: EC P-384)'));
  });

  it('rejects an Ed25519 key for ES256 and an RSA key for EdDSA', async () => {
    expect(await validateFor([jwkSecret(keys.ed)], rawToken({ alg: 'ES256' }, claimsFor('app'), 'c2ln'))).toMatchObject(fail('no key of the client fits alg ES256 (keys: OKP Ed25519)'),
    );
    expect(await validateFor([await certificateSecret(keys.rsa)], rawToken({ alg: 'EdDSA' }, claimsFor('app'), 'c2ln'))).toMatchObject(fail('no key of the client fits alg EdDSA (keys: RSA)'),
    );
  });

  it('holds a JWK to its own alg', async () => {
    const token = await sign(keys.rsa, 'PS256', claimsFor('app'));
    expect(await validateFor([jwkSecret(keys.rsa, { alg: 'RS256' })], token)).toMatchObject(fail('no key of the client fits alg PS256 (keys: RSA (alg RS256))'));
    expect(await validateFor([jwkSecret(keys.rsa, { alg: 'PS256' })], token)).toMatchObject({ success: true });
  });
});

describe('signature', () => {
  it('rejects a certificate whose key is not the signing key', async () => {
    const token = await sign(keys.rsa2, 'RS256', claimsFor('app'));
    expect(await validateFor([await certificateSecret(keys.rsa)], token)).toMatchObject(fail('signature does not verify with the candidate key'));
  });

  it('rejects a tampered payload', async () => {
    const [header, , signature] = (await sign(keys.p256, 'ES256', claimsFor('app'))).split('.');
    const forged = `${header}.${rawToken({}, claimsFor('app', { exp: NOW / 1000 + 600 })).split('.')[1]}.${signature}`;
    expect(await validateFor([jwkSecret(keys.p256)], forged)).toMatchObject(fail('signature does not verify with the candidate key'));
  });

  it('rejects an assertion of another client, signed with that client\'s key, presented for this one', async () => {
    const app = makeClient('app', [await certificateSecret(keys.p256)]);
    const other = makeClient('other', [await certificateSecret(keys.p256b)]);
    const { validator } = await setup([app, other]);
    const token = await sign(keys.p256b, 'ES256', claimsFor('other'));
    expect(await validator.validate(contextFor(app, token))).toMatchObject(fail('signature does not verify with the candidate key'));
    const iss = await sign(keys.p256b, 'ES256', claimsFor('app'));
    expect(await validator.validate(contextFor(app, iss))).toMatchObject(fail('signature does not verify with the candidate key'));
  });

  it('tries every fitting key when there is no kid', async () => {
    const secrets = [jwkSecret(keys.p256), await certificateSecret(keys.rsa), await certificateSecret(keys.rsa2)];
    expect(await validateFor(secrets, await sign(keys.rsa2, 'RS256', claimsFor('app')))).toMatchObject({ success: true });
    expect(await validateFor(secrets, await sign(keys.rsaPss, 'PS256', claimsFor('app')))).toMatchObject(fail('signature does not verify with any of 2 candidate keys'),
    );
  });

  it('rejects a malformed assertion and a payload that is not a JSON object', async () => {
    expect(await validateFor([jwkSecret(keys.p256)], 'a.b')).toMatchObject(fail('malformed assertion: not three dot-separated parts'));
    const array = await new CompactSign(new TextEncoder().encode('[1]')).setProtectedHeader({ alg: 'ES256' }).sign(keys.p256.privateKey);
    expect(await validateFor([jwkSecret(keys.p256)], array)).toMatchObject(fail('malformed assertion: payload is not a JSON object'));
  });

  it('fails when the client has no key secret at all', async () => {
    const token = await sign(keys.p256, 'ES256', claimsFor('app'));
    expect(await validateFor([secret('SharedSecret', 'K7gNU3sdo+OL0wNhqoVWhr3g6s1xYv72ol/pe/Unols=')], token)).toMatchObject(fail('the client has no usable X509CertificateBase64 or JsonWebKey secret'),
    );
  });
});

describe('certificate validity', () => {
  it('rejects an expired certificate', async () => {
    const expired = await certificateSecret(keys.rsa, { notBefore: NOW - 30 * DAY, notAfter: NOW - DAY, description: 'laptop 2026' });
    const token = await sign(keys.rsa, 'RS256', claimsFor('app'));
    expect(await validateFor([expired], token)).toMatchObject(fail('certificate of secret "laptop 2026" expired at 2027-01-14T12:00:00.000Z'));
  });

  it('rejects a certificate that is not yet valid', async () => {
    const future = await certificateSecret(keys.ed, { notBefore: NOW + 1000, notAfter: NOW + DAY });
    const token = await sign(keys.ed, 'EdDSA', claimsFor('app'));
    expect(await validateFor([future], token)).toMatchObject(fail('certificate of secret #0 is not valid before 2027-01-15T12:00:01.000Z'));
  });

  it('uses the valid certificate when an expired one of the same key sits beside it (rollover)', async () => {
    const expired = await certificateSecret(keys.rsa, { notBefore: NOW - 30 * DAY, notAfter: NOW - DAY });
    const current = await certificateSecret(keys.rsa);
    const token = await sign(keys.rsa, 'RS256', claimsFor('app'));
    expect(await validateFor([expired, current], token)).toMatchObject({ success: true });
  });

  it('reads validity against the clock at validation time', async () => {
    const client = makeClient('app', [await certificateSecret(keys.p256, { notBefore: NOW - DAY, notAfter: NOW + DAY })]);
    let now = NOW;
    const deps = makeDeps({ clients: [client], now: () => now });
    const validator = createAssertionValidator(deps);
    expect(await validator.validate(contextFor(client, await sign(keys.p256, 'ES256', claimsFor('app'))))).toMatchObject({ success: true });
    now = NOW + 2 * DAY;
    const later = await sign(keys.p256, 'ES256', claimsFor('app', { iat: now / 1000, exp: now / 1000 + 60 }));
    expect(await validator.validate(contextFor(client, later))).toMatchObject(fail('certificate of secret #0 expired at 2027-01-16T12:00:00.000Z'));
  });
});

describe('kid', () => {
  it('selects the JWK with that kid', async () => {
    const secrets = [jwkSecret(keys.p256, { kid: 'k1' }), jwkSecret(keys.p256b, { kid: 'k2' })];
    expect(await validateFor(secrets, await sign(keys.p256b, 'ES256', claimsFor('app'), { kid: 'k2' }))).toMatchObject({ success: true });
    expect(await validateFor(secrets, await sign(keys.p256b, 'ES256', claimsFor('app'), { kid: 'k1' }))).toMatchObject(fail('signature does not verify with the candidate key'),
    );
    expect(await validateFor(secrets, await sign(keys.p256b, 'ES256', claimsFor('app'), { kid: 'k3' }))).toMatchObject(fail('no key of the client has kid "k3"'),
    );
  });

  it('selects a certificate by x5t, x5t#S256 or the JWK thumbprint of its key', async () => {
    const derA = await certificateOf(keys.ed);
    const derB = await certificateOf(keys.ed2);
    const secrets = [derA, derB].map((der) => secret('X509CertificateBase64', Buffer.from(der).toString('base64')));
    const kidsOf = async (der: Uint8Array, key: TestKey) => [
      createHash('sha1').update(der).digest('base64url'),
      createHash('sha256').update(der).digest('base64url'),
      await calculateJwkThumbprint(key.publicKey),
    ];
    for (const kid of await kidsOf(derB, keys.ed2)) {
      expect(await validateFor(secrets, await sign(keys.ed2, 'EdDSA', claimsFor('app'), { kid }))).toMatchObject({ success: true });
    }
    for (const kid of await kidsOf(derA, keys.ed)) {
      expect(await validateFor(secrets, await sign(keys.ed2, 'EdDSA', claimsFor('app'), { kid }))).toMatchObject(fail('signature does not verify with the candidate key'),
      );
    }
  });

  it('selects a JWK without kid by its thumbprint', async () => {
    const kid = await calculateJwkThumbprint(keys.rsa2.publicKey);
    const secrets = [jwkSecret(keys.rsa), jwkSecret(keys.rsa2)];
    expect(await validateFor(secrets, await sign(keys.rsa2, 'RS256', claimsFor('app'), { kid }))).toMatchObject({ success: true });
  });

  it('says when the key with that kid does not fit the alg', async () => {
    const secrets = [jwkSecret(keys.p256, { kid: 'ec' }), jwkSecret(keys.rsa, { kid: 'rsa' })];
    expect(await validateFor(secrets, await sign(keys.rsa, 'RS256', claimsFor('app'), { kid: 'ec' }))).toMatchObject(fail('no key with kid "ec" fits alg RS256 (keys: EC P-256)'),
    );
  });
});
