/** Secrets become keys once, at start-up; a secret that cannot be used stops start-up. */
import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { calculateJwkThumbprint } from 'jose';
import { createAssertionValidator } from '../../../plugins/private-key-jwt/assertion-validator.js';
import { ClientKeys } from '../../../plugins/private-key-jwt/client-keys.js';
import type { ApiResource, Secret } from 'svc/sdk';
import { certificateOf, certificateSecret, jwkSecret, makeClient, makeConfig, makeDeps, makeKey, publicJwk, secret, type TestKey } from './helpers.js';

let rsa: TestKey;
let ec: TestKey;
let weak: TestKey;
let good: Secret;
beforeAll(async () => {
  [rsa, ec, weak] = await Promise.all([makeKey('RSA'), makeKey('P-256'), makeKey('RSA-1024')]);
  good = await certificateSecret(ec);
});

// The factory may be sync or async (Factory<T>); either way start-up fails.
const startWith = async (secrets: Secret[], properties: Record<string, string> = {}) =>
  createAssertionValidator(makeDeps({ clients: [makeClient('app', [good, ...secrets], properties)] }));
const cert = (value: string) => secret('X509CertificateBase64', value);
const jwk = (value: unknown) => secret('JsonWebKey', JSON.stringify(value));

describe('start-up', () => {
  it.each([
    ['not base64', () => cert('not base64!'), 'not base64'],
    ['PEM', () => cert('-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----'), 'found PEM armour; give the base64 DER only (the lines between BEGIN and END, joined)'],
    ['not JSON', () => secret('JsonWebKey', '{kty: RSA'), 'not JSON text'],
    ['a JSON array', () => jwk([]), 'not a JSON object'],
    ['oct', () => jwk({ kty: 'oct', k: 'c2VjcmV0' }), 'a symmetric "oct" key; only public keys can verify assertions'],
    ['private RSA', () => jwk(rsa.privateKey.export({ format: 'jwk' })), 'a private JWK (has "d"); configure the public key only'],
    ['private EC', () => jwk(ec.privateKey.export({ format: 'jwk' })), 'a private JWK (has "d"); configure the public key only'],
    ['use enc', () => jwk(publicJwk(ec, { use: 'enc' })), '"use" is "enc"; expected "sig"'],
    ['key_ops', () => jwk(publicJwk(ec, { key_ops: ['encrypt'] })), '"key_ops" does not include "verify"'],
    ['alg HS256', () => jwk(publicJwk(ec, { alg: 'HS256' })), '"alg" "HS256" is not a signature algorithm this plugin accepts'],
    ['alg of another key type', () => jwk(publicJwk(ec, { alg: 'RS256' })), '"alg" RS256 does not fit this EC P-256 key'],
    ['non-string kid', () => jwk(publicJwk(ec, { kid: 7 })), '"kid" is not a string'],
    ['X25519', () => jwk({ kty: 'OKP', crv: 'X25519', x: 'hSDwCYkwp1R0i33ctD73Wg2_Og0mOBr066SpjqqbTmo' }), 'x25519 keys are not supported; use RSA, EC or Ed25519'],
    ['broken EC', () => jwk({ kty: 'EC', crv: 'P-256', x: 'AA', y: 'AA' }), /^not a valid public JWK \(/],
  ])('rejects a JWK or certificate that is %s, naming the client and index', async (_, make, message) => {
    const start = startWith([make()]);
    const type = make().type;
    if (typeof message === 'string') {
      await expect(start).rejects.toThrow(new Error(`plugin private-key-jwt: client "app" clientSecrets[1] (${type}): ${message}`));
    } else {
      await expect(start).rejects.toThrow(`plugin private-key-jwt: client "app" clientSecrets[1] (${type}): not a valid public JWK (`);
    }
  });

  it('rejects base64 that is not a certificate', async () => {
    await expect(startWith([cert(Buffer.from('hello, world').toString('base64'))])).rejects.toThrow(
      'plugin private-key-jwt: client "app" clientSecrets[1] (X509CertificateBase64): not a DER X.509 certificate (',
    );
  });

  it('rejects an RSA certificate under 2048 bits', async () => {
    await expect(startWith([await certificateSecret(weak)])).rejects.toThrow(
      new Error('plugin private-key-jwt: client "app" clientSecrets[1] (X509CertificateBase64): RSA key of 1024 bits; at least 2048 are required'),
    );
  });

  it('names an API resource', async () => {
    const api: ApiResource = { name: 'orders', scopes: [], secrets: [jwk({ kty: 'oct', k: 'c2VjcmV0' })] };
    await expect((async () => createAssertionValidator(makeDeps({ apiResources: [api] })))()).rejects.toThrow(
      new Error('plugin private-key-jwt: apiResource "orders" secrets[0] (JsonWebKey): a symmetric "oct" key; only public keys can verify assertions'),
    );
  });

  it('ignores secrets of other types', async () => {
    await expect(startWith([secret('SharedSecret', 'not a key at all')])).resolves.toBeDefined();
  });

  it('rejects a bad privateKeyJwt.audience client property', async () => {
    await expect(startWith([], { 'privateKeyJwt.audience': 'lenient' })).rejects.toThrow(
      new Error('plugin private-key-jwt: clients[0] ("app") properties["privateKeyJwt.audience"]: expected "strict" or "compat", found "lenient"'),
    );
  });

  it('rejects a misspelt privateKeyJwt property rather than leaving the client on the global rule', async () => {
    await expect(startWith([], { 'privateKeyJwt.audiance': 'compat' })).rejects.toThrow(
      new Error('plugin private-key-jwt: clients[0] ("app") properties["privateKeyJwt.audiance"]: unknown private-key-jwt property; the only one is "privateKeyJwt.audience"'),
    );
    await expect(startWith([], { 'privatekeyjwt.audience': 'compat' })).rejects.toThrow(/unknown private-key-jwt property/);
  });

  it('leaves other properties alone', async () => {
    await expect(startWith([], { 'tenant': 'a', 'privateKeyJwt.audience': 'compat' })).resolves.toBeDefined();
  });
});

describe('ClientKeys', () => {
  it('parses each secret once and serves copies of it from the cache', async () => {
    const jwkS = jwkSecret(rsa, { kid: 'r1' });
    const keys = ClientKeys.fromConfig(makeConfig([makeClient('app', [good, jwkS])]));
    const first = keys.keysFor([good, jwkS]);
    const again = keys.keysFor([{ ...good }, { ...jwkS }]);
    expect(first.unusable).toEqual([]);
    expect(first.keys.map(({ key }) => key)).toHaveLength(2);
    expect(again.keys[0]!.key).toBe(first.keys[0]!.key);
    expect(again.keys[1]!.key).toBe(first.keys[1]!.key);
  });

  it("keeps a store's frozen secret by object: parsed once per loaded copy, a new copy parsed anew", async () => {
    const keys = ClientKeys.fromConfig(makeConfig([]));
    const stored = Object.freeze({ ...(await certificateSecret(ec)) });
    const first = keys.keysFor([stored]).keys[0]!.key;
    expect(keys.keysFor([stored]).keys[0]!.key).toBe(first);
    // The store reloaded: an equal secret in a new object is its own entry, the old one can be collected.
    const reloaded = Object.freeze({ ...stored });
    const fresh = keys.keysFor([reloaded]).keys[0]!.key;
    expect(fresh).not.toBe(first);
    expect(fresh.kids).toEqual(first.kids);
    // A value that does not parse is remembered as unusable, with the same reason each time.
    const broken = Object.freeze(secret('JsonWebKey', '[]'));
    expect(keys.keysFor([broken]).unusable).toEqual(['secret #0: not a JSON object']);
    expect(keys.keysFor([broken]).unusable).toEqual(['secret #0: not a JSON object']);
  });

  it('reports a secret it cannot use that was not in the config, by description', () => {
    const keys = ClientKeys.fromConfig(makeConfig([]));
    const { keys: usable, unusable } = keys.keysFor([secret('JsonWebKey', '[]', 'old key'), secret('SharedSecret', 'x')]);
    expect(usable).toEqual([]);
    expect(unusable).toEqual(['secret "old key": not a JSON object']);
  });

  it('selects a certificate by x5t, x5t#S256 and JWK thumbprint, a JWK by kid and thumbprint', async () => {
    const der = await certificateOf(ec);
    const certS = secret('X509CertificateBase64', Buffer.from(der).toString('base64'));
    const jwkS = jwkSecret(rsa, { kid: 'r1' });
    const keys = ClientKeys.fromConfig(makeConfig([makeClient('app', [certS, jwkS])]));
    const [c, j] = keys.keysFor([certS, jwkS]).keys;
    expect(c!.key.kids).toEqual(
      new Set([
        createHash('sha1').update(der).digest('base64url'),
        createHash('sha256').update(der).digest('base64url'),
        await calculateJwkThumbprint(ec.publicKey),
      ]),
    );
    expect(j!.key.kids).toEqual(new Set(['r1', await calculateJwkThumbprint(rsa.publicKey)]));
  });

  it('keeps the certificate validity window', async () => {
    const der = await certificateOf(ec, { notBefore: Date.UTC(2027, 0, 1), notAfter: Date.UTC(2028, 0, 1) });
    const s = secret('X509CertificateBase64', Buffer.from(der).toString('base64'));
    const [k] = ClientKeys.fromConfig(makeConfig([])).keysFor([s]).keys;
    expect([k!.key.notBefore, k!.key.notAfter, k!.key.source]).toEqual([Date.UTC(2027, 0, 1), Date.UTC(2028, 0, 1), 'certificate']);
  });
});
