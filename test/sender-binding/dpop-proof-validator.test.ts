/**
 * The DPoP proof validator with plain inputs (RFC 9449 §4.3): what the HTTP tests cannot reach
 * cheaply — keys that do not fit the algorithm, a `jwk` whose own `alg` differs, an algorithm
 * left out of the configured list — and the answers it gives at a resource.
 */
import { generateKeyPairSync, randomUUID, sign, type KeyObject } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/resolve.js';
import { createDpopProofValidator } from '../../src/sender-binding/dpop-proof-validator.js';
import { createDpopNonces } from '../../src/sender-binding/dpop-nonces.js';
import { signCompactJws, type JwsAlgorithm } from '../../src/sdk/jws.js';
import { timeOrderedKey } from '../../src/sdk/store-keys.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import { isOAuthError } from '../../src/sdk/errors.js';

const url = 'https://id.example.com/connect/token';
const clock = { now: () => Date.now() };

function validator(dpop: Record<string, unknown> = {}, store = createMemoryStore(clock), more: Record<string, unknown> = {}) {
  const config = resolveConfig({ issuer: 'https://id.example.com', dpop, ...more }, '/');
  const nonces = createDpopNonces({ secret: async () => Buffer.alloc(32, 1), clock, lifetimeSeconds: 300 });
  return createDpopProofValidator({ config, store, clock, nonces });
}

function proof(privateKey: Parameters<typeof signCompactJws>[0], alg: JwsAlgorithm, jwk: object, claims: Record<string, unknown> = {}): string {
  return signCompactJws(privateKey, alg)(
    { typ: 'dpop+jwt', alg, jwk },
    { jti: randomUUID(), htm: 'POST', htu: url, iat: Math.floor(Date.now() / 1000), ...claims },
  );
}

/** A proof signed with a P-384 key under ES256, as a broken client might: the service's signer refuses to make one. */
function p384ProofAsEs256(privateKey: KeyObject, jwk: object): string {
  const part = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url');
  const input = `${part({ typ: 'dpop+jwt', alg: 'ES256', jwk })}.${part({ jti: randomUUID(), htm: 'POST', htu: url, iat: Math.floor(Date.now() / 1000) })}`;
  return `${input}.${sign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
}

async function refusal(check: Promise<unknown>): Promise<{ code: string; status: number; detail: string | undefined; headers: Record<string, string> }> {
  const err = await check.then(() => undefined, (e: unknown) => e);
  if (!isOAuthError(err)) throw new Error(`expected an OAuth error, got ${String(err)}`);
  return { code: err.code, status: err.status, detail: err.logDetail, headers: { ...err.headers } };
}

const ec = (namedCurve: string) => {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve });
  return { privateKey, jwk: publicKey.export({ format: 'jwk' }) };
};

describe('DPoP proof validator', () => {
  it('returns the key thumbprint and no ath for a good token endpoint proof; undefined without a header', async () => {
    const v = validator();
    const { privateKey, jwk } = ec('P-256');
    const summary = await v.check({ headers: [proof(privateKey, 'ES256', jwk)], method: 'POST', url }, 'token');
    expect(summary).toEqual({ jkt: expect.stringMatching(/^[\w-]{43}$/), ath: undefined, alg: 'ES256' });
    expect(await v.check({ headers: undefined, method: 'POST', url }, 'token')).toBeUndefined();
  });

  it('refuses a P-384 key under ES256, an RSA key under 2048 bits and a jwk whose alg differs', async () => {
    const v = validator({ signingAlgValues: ['ES256', 'RS256'] });
    const p384 = ec('P-384');
    expect((await refusal(v.check({ headers: [p384ProofAsEs256(p384.privateKey, p384.jwk)], method: 'POST', url }, 'token'))).detail)
      .toBe('jwk does not fit alg ES256');
    const small = generateKeyPairSync('rsa', { modulusLength: 1024 });
    expect((await refusal(v.check({ headers: [proof(small.privateKey, 'RS256', small.publicKey.export({ format: 'jwk' }))], method: 'POST', url }, 'token'))).detail)
      .toBe('jwk does not fit alg RS256');
    const p256 = ec('P-256');
    expect((await refusal(v.check({ headers: [proof(p256.privateKey, 'ES256', { ...p256.jwk, alg: 'ES384' })], method: 'POST', url }, 'token'))).detail)
      .toBe('jwk does not fit alg ES256');
  });

  it('refuses an algorithm left out of dpop.signingAlgValues', async () => {
    const v = validator({ signingAlgValues: ['ES256'] });
    const ed = generateKeyPairSync('ed25519');
    const answer = await refusal(v.check({ headers: [proof(ed.privateKey, 'EdDSA', ed.publicKey.export({ format: 'jwk' }))], method: 'POST', url }, 'token'));
    expect(answer).toEqual({ code: 'invalid_dpop_proof', status: 400, detail: 'alg "EdDSA" is not accepted', headers: {} });
  });

  it('at a resource: 401 with a DPoP challenge naming the accepted algorithms', async () => {
    const v = validator({ signingAlgValues: ['ES256', 'PS256'] });
    const { privateKey, jwk } = ec('P-256');
    const answer = await refusal(v.check({ headers: [proof(privateKey, 'ES256', jwk, { htm: 'GET' })], method: 'GET', url, accessToken: 'token' }, 'resource'));
    expect(answer).toEqual({
      code: 'invalid_dpop_proof', status: 401, detail: 'ath is missing',
      headers: { 'WWW-Authenticate': 'DPoP error="invalid_dpop_proof", error_description="The DPoP proof is invalid", algs="ES256 PS256"' },
    });
  });

  it('checks nothing else and records no jti before the signature verified', async () => {
    const v = validator();
    const { privateKey, jwk } = ec('P-256');
    const other = ec('P-256');
    const jti = randomUUID();
    const forged = proof(other.privateKey, 'ES256', jwk, { jti });
    expect((await refusal(v.check({ headers: [forged], method: 'POST', url }, 'token'))).detail).toBe('signature does not verify with the proof jwk');
    // The genuine proof with that jti still passes: the forgery burnt nothing.
    expect(await v.check({ headers: [proof(privateKey, 'ES256', jwk, { jti })], method: 'POST', url }, 'token')).toBeDefined();
  });

  it("records a used jti with the proof's key and iat, so the replay of a proof is refused and each record has the iat in front", async () => {
    const store = createMemoryStore(clock);
    const v = validator({}, store);
    const { privateKey, jwk } = ec('P-256');
    const jti = randomUUID();
    const iat = Math.floor(Date.now() / 1000) - 5;
    const first = proof(privateKey, 'ES256', jwk, { jti, iat });
    const { jkt } = (await v.check({ headers: [first], method: 'POST', url }, 'token'))!;
    const record = await store.get(timeOrderedKey(iat * 1000, `dpop_jti:${jkt}:${jti}`));
    expect(record).toMatchObject({ type: 'dpop_jti', expiresAt: (iat + 300 + 1) * 1000 });
    expect((await refusal(v.check({ headers: [first], method: 'POST', url }, 'token'))).detail).toBe('jti was already used (replay)');
    // Another proof signed with that jti and iat (htu spelled with the default port) is the same record.
    const again = proof(privateKey, 'ES256', jwk, { jti, iat, htu: 'https://id.example.com:443/connect/token' });
    expect((await refusal(v.check({ headers: [again], method: 'POST', url }, 'token'))).detail).toBe('jti was already used (replay)');
  });

  it('verify checks the proof and writes nothing; spend records the jti once, and a second spend is the replay', async () => {
    const store = createMemoryStore(clock);
    const v = validator({}, store);
    const { privateKey, jwk } = ec('P-256');
    const jti = randomUUID();
    const iat = Math.floor(Date.now() / 1000);
    const headers = [proof(privateKey, 'ES256', jwk, { jti, iat })];
    const verified = (await v.verify({ headers, method: 'POST', url }, 'token'))!;
    expect(verified.summary).toEqual({ jkt: expect.stringMatching(/^[\w-]{43}$/), ath: undefined, alg: 'ES256' });
    const key = timeOrderedKey(iat * 1000, `dpop_jti:${verified.summary.jkt}:${jti}`);
    expect(await store.get(key)).toBeUndefined();
    // Verified again (a request refused after verify, e.g. a client that failed to authenticate): still nothing written, still good.
    const again = (await v.verify({ headers, method: 'POST', url }, 'token'))!;
    expect(await store.get(key)).toBeUndefined();
    await verified.spend();
    expect(await store.get(key)).toMatchObject({ type: 'dpop_jti' });
    expect(await refusal(again.spend())).toEqual({ code: 'invalid_dpop_proof', status: 400, detail: 'jti was already used (replay)', headers: {} });
  });

  it('a refused proof is refused by verify, before anything could be spent', async () => {
    const v = validator();
    const { privateKey, jwk } = ec('P-256');
    const stale = proof(privateKey, 'ES256', jwk, { iat: Math.floor(Date.now() / 1000) - 3600 });
    expect((await refusal(v.verify({ headers: [stale], method: 'POST', url }, 'token'))).detail).toBe('iat is too old');
    expect(await v.verify({ headers: undefined, method: 'POST', url }, 'token')).toBeUndefined();
  });

  it('trusts a header met before for its key only: every later proof with it is verified, and its claims checked', async () => {
    const v = validator();
    const { privateKey, jwk } = ec('P-256');
    const other = ec('P-256');
    expect(await v.check({ headers: [proof(privateKey, 'ES256', jwk)], method: 'POST', url }, 'token')).toBeDefined();
    // The same header part again, signed by another key: the checked header does not vouch for the signature.
    const forged = proof(other.privateKey, 'ES256', jwk);
    expect((await refusal(v.check({ headers: [forged], method: 'POST', url }, 'token'))).detail).toBe('signature does not verify with the proof jwk');
    // The same header with a payload that is not JSON, or a stale iat: refused as before.
    const [header] = forged.split('.');
    const notJson = `${header}.${Buffer.from('not json').toString('base64url')}.${forged.split('.')[2]}`;
    expect((await refusal(v.check({ headers: [notJson], method: 'POST', url }, 'token'))).detail).toBe('malformed proof: payload is not JSON');
    const stale = proof(privateKey, 'ES256', jwk, { iat: Math.floor(Date.now() / 1000) - 3600 });
    expect((await refusal(v.check({ headers: [stale], method: 'POST', url }, 'token'))).detail).toBe('iat is too old');
  });

  it('refuses a header again after refusing it once (a refused header is not remembered as checked)', async () => {
    const v = validator();
    const { privateKey, jwk } = ec('P-256');
    const withPrivate = { ...jwk, d: 'x' };
    for (let i = 0; i < 2; i++) {
      expect((await refusal(v.check({ headers: [proof(privateKey, 'ES256', withPrivate)], method: 'POST', url }, 'token'))).detail)
        .toBe('jwk has the private member "d"');
    }
  });

  it('accepts htu spelled otherwise (case, default port) and refuses another path', async () => {
    const v = validator();
    const { privateKey, jwk } = ec('P-256');
    expect(await v.check({ headers: [proof(privateKey, 'ES256', jwk, { htu: 'HTTPS://ID.example.com:443/connect/token' })], method: 'POST', url }, 'token')).toBeDefined();
    expect((await refusal(v.check({ headers: [proof(privateKey, 'ES256', jwk, { htu: 'https://id.example.com/connect/token2' })], method: 'POST', url }, 'token'))).detail)
      .toBe('htu does not match the endpoint URL');
  });

  it('with mTLS endpoint aliases on another host, accepts the alias of this endpoint as htu (RFC 8705 §5), and no other', async () => {
    const v = validator({}, createMemoryStore(clock), { mtls: { endpointAliasesBaseUrl: 'https://mtls.example.com' } });
    const { privateKey, jwk } = ec('P-256');
    const check = (htu: string) => v.check({ headers: [proof(privateKey, 'ES256', jwk, { htu })], method: 'POST', url }, 'token');
    expect(await check('https://mtls.example.com/connect/token')).toBeDefined();
    expect(await check('https://id.example.com/connect/token')).toBeDefined();
    for (const htu of ['https://mtls.example.com/connect/par', 'https://other.example.com/connect/token', 'http://mtls.example.com/connect/token']) {
      expect((await refusal(check(htu))).detail).toBe('htu does not match the endpoint URL');
    }
    // Without aliases on another host, the alias URL is no URL of this service.
    const plain = validator();
    expect((await refusal(plain.check({ headers: [proof(privateKey, 'ES256', jwk, { htu: 'https://mtls.example.com/connect/token' })], method: 'POST', url }, 'token'))).detail)
      .toBe('htu does not match the endpoint URL');
  });
});
