/**
 * The assertion reader: what it refuses to decode, and signatures checked with node:crypto
 * against tokens that jose signed (so a disagreement with jose on any algorithm shows here).
 */
import { sign as nodeSign } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { MalformedJws, parseCompactJws, verifyCompactJws as verifySignature } from '../../src/sdk/jws.js';
import type { SupportedAlgorithm } from '../../plugins/private-key-jwt/algorithms.js';
import { claimsFor, makeKey, rawToken, sign, type KeyKind, type TestKey } from '../plugins/private-key-jwt/helpers.js';

const keys = {} as Record<'rsa' | 'rsaPss' | 'p256' | 'p384' | 'ed' | 'rsa2' | 'p256b', TestKey>;

beforeAll(async () => {
  const kinds: Array<[keyof typeof keys, KeyKind]> = [
    ['rsa', 'RSA'], ['rsaPss', 'RSA-PSS'], ['p256', 'P-256'], ['p384', 'P-384'], ['ed', 'Ed25519'], ['rsa2', 'RSA'], ['p256b', 'P-256'],
  ];
  await Promise.all(kinds.map(async ([name, kind]) => (keys[name] = await makeKey(kind))));
});

const b64 = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

function refusal(token: string): string {
  try {
    parseCompactJws(token);
  } catch (error) {
    expect(error).toBeInstanceOf(MalformedJws);
    return (error as Error).message;
  }
  throw new Error('decoded');
}

describe('reading', () => {
  it('decodes header, claims, the signed input and the signature', async () => {
    const claims = claimsFor('app');
    const token = await sign(keys.p256, 'ES256', claims, { kid: 'k1' });
    const jws = parseCompactJws(token);
    expect(jws.header).toEqual({ alg: 'ES256', kid: 'k1' });
    expect(jws.claims).toEqual(claims);
    expect(jws.signingInput.toString()).toBe(token.slice(0, token.lastIndexOf('.')));
    expect(jws.signature).toHaveLength(64);
  });

  it.each([
    ['two parts', 'eyJhbGciOiJFUzI1NiJ9.e30', 'not three dot-separated parts'],
    ['four parts', `${b64({ alg: 'ES256' })}.${b64({})}.AAAA.AAAA`, 'not three dot-separated parts'],
    ['an empty header', `.${b64({})}.AAAA`, 'header is not base64url'],
    ['an empty payload', `${b64({ alg: 'ES256' })}..AAAA`, 'payload is not base64url'],
    ['base64 padding', `${b64({ alg: 'ES256' })}=.${b64({})}.AAAA`, 'header is not base64url'],
    ['base64 (not url) characters', `${b64({ alg: 'ES256' })}.${b64({})}.ab+/`, 'signature is not base64url'],
    ['a length no bytes encode to', `${b64({ alg: 'ES256' })}.${b64({})}.AAAAA`, 'signature is not base64url'],
    ['a header that is not JSON', `${Buffer.from('{alg').toString('base64url')}.${b64({})}.AAAA`, 'header is not JSON'],
    ['a header that is an array', `${b64(['ES256'])}.${b64({})}.AAAA`, 'header is not a JSON object'],
    ['a payload that is a string', `${b64({ alg: 'ES256' })}.${b64('app')}.AAAA`, 'payload is not a JSON object'],
    ['a payload that is null', `${b64({ alg: 'ES256' })}.${b64(null)}.AAAA`, 'payload is not a JSON object'],
  ])('refuses %s', (_name, token, message) => {
    expect(refusal(token)).toBe(message);
  });

  // RFC 7515 §4.1.11: an extension the recipient does not understand invalidates the JWS.
  it('refuses any crit header, including RFC 7797 b64', () => {
    expect(refusal(rawToken({ alg: 'ES256', crit: ['exp'], exp: 1 }, claimsFor('app'), 'AAAA'))).toBe('header has crit; no extension is understood');
    expect(refusal(rawToken({ alg: 'ES256', crit: ['b64'], b64: false }, claimsFor('app'), 'AAAA'))).toBe('header has crit; no extension is understood');
  });

  it('reads an unsecured JWS with its empty signature, for the caller to refuse its alg', () => {
    expect(parseCompactJws(rawToken({ alg: 'none' }, claimsFor('app'))).signature).toHaveLength(0);
  });
});

describe('verifying', () => {
  const cases: Array<[keyof typeof keys, SupportedAlgorithm]> = [
    ['rsa', 'RS256'], ['rsa', 'RS384'], ['rsa', 'RS512'],
    ['rsa', 'PS256'], ['rsa', 'PS384'], ['rsa', 'PS512'], ['rsaPss', 'PS256'],
    ['p256', 'ES256'], ['p384', 'ES384'],
    ['ed', 'EdDSA'], ['ed', 'Ed25519'],
  ];

  it.each(cases)('%s key, %s: verifies what jose signed, and nothing else', async (name, alg) => {
    const key = keys[name];
    const jws = parseCompactJws(await sign(key, alg, claimsFor('app')));
    expect(verifySignature(jws, alg, key.publicKey)).toBe(true);

    const other = { rsa: keys.rsa2, rsaPss: keys.rsa2, p256: keys.p256b, p384: keys.p256b, ed: keys.p256b }[name as 'rsa'];
    expect(verifySignature(jws, alg, other.publicKey)).toBe(false);
    const tampered = { ...jws, signingInput: Buffer.from(`${jws.signingInput.toString()}x`) };
    expect(verifySignature(tampered, alg, key.publicKey)).toBe(false);
    const flipped = Buffer.from(jws.signature);
    flipped[flipped.length - 1]! ^= 1;
    expect(verifySignature({ ...jws, signature: flipped }, alg, key.publicKey)).toBe(false);
  });

  it('does not take a signature under one RSA scheme for the other', async () => {
    const pkcs1 = parseCompactJws(await sign(keys.rsa, 'RS256', claimsFor('app')));
    expect(verifySignature(pkcs1, 'PS256', keys.rsa.publicKey)).toBe(false);
    const pss = parseCompactJws(await sign(keys.rsa, 'PS256', claimsFor('app')));
    expect(verifySignature(pss, 'RS256', keys.rsa.publicKey)).toBe(false);
    expect(verifySignature(pss, 'PS384', keys.rsa.publicKey)).toBe(false);
  });

  // RFC 7518 §3.4: R || S of the curve's size; a DER signature of the right key is still refused.
  it('takes ECDSA signatures as R || S only', async () => {
    const jws = parseCompactJws(await sign(keys.p256, 'ES256', claimsFor('app')));
    const der = nodeSign('sha256', jws.signingInput, keys.p256.privateKey);
    expect(verifySignature({ ...jws, signature: der }, 'ES256', keys.p256.publicKey)).toBe(false);
    expect(verifySignature({ ...jws, signature: jws.signature.subarray(0, 63) }, 'ES256', keys.p256.publicKey)).toBe(false);
    expect(verifySignature({ ...jws, signature: Buffer.alloc(0) }, 'ES256', keys.p256.publicKey)).toBe(false);
  });

  it('is false, not an exception, when node:crypto refuses the key for the alg', async () => {
    const jws = parseCompactJws(await sign(keys.ed, 'EdDSA', claimsFor('app')));
    expect(verifySignature(jws, 'RS256', keys.ed.publicKey)).toBe(false);
  });
});
