/**
 * ECDSA signatures are made and checked by node:crypto in DER and converted to and from the
 * JWS form R || S (RFC 7518 §3.4) in src/sdk/jws.ts. node:crypto's own `ieee-p1363` encoding is
 * the oracle here: every signature ours makes verifies with it, and every one it makes verifies
 * with ours, including R or S values that start with a zero byte (shorter in DER) and those
 * with the high bit set (a padding zero in DER).
 */
import { generateKeyPairSync, sign as nodeSign, verify as nodeVerify, type KeyObject } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { derToRs, rsToDer } from '../../src/sdk/ecdsa-signature.js';
import { parseCompactJws, signCompactJws, verifyCompactJws, type JwsAlgorithm } from '../../src/sdk/jws.js';

const curves = [
  ['ES256', 'P-256', 'sha256', 64],
  ['ES384', 'P-384', 'sha384', 96],
  ['ES512', 'P-521', 'sha512', 132],
] as const;

const p1363 = (key: KeyObject) => ({ key, dsaEncoding: 'ieee-p1363' as const });

/** Signs until `found` holds for the R || S signature, or gives up after `max` tries. */
function signatureWhere(alg: JwsAlgorithm, privateKey: KeyObject, found: (rs: Buffer) => boolean, max = 20_000) {
  const sign = signCompactJws(privateKey, alg);
  for (let i = 0; i < max; i++) {
    const jws = parseCompactJws(sign({ alg }, { n: i }));
    if (found(jws.signature)) return jws;
  }
  throw new Error(`no ${alg} signature of the wanted shape in ${max} tries`);
}

describe.each(curves)('%s signatures (%s)', (alg, namedCurve, hash, size) => {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve });
  const half = size / 2;

  it('made by the signer are R || S that node:crypto verifies as ieee-p1363', () => {
    const sign = signCompactJws(privateKey, alg);
    for (let i = 0; i < 50; i++) {
      const jws = parseCompactJws(sign({ alg, kid: 'k' }, { sub: 'alice', n: i }));
      expect(jws.signature).toHaveLength(size);
      expect(nodeVerify(hash, jws.signingInput, p1363(publicKey), jws.signature)).toBe(true);
      expect(verifyCompactJws(jws, alg, publicKey)).toBe(true);
    }
  });

  it('made by node:crypto as ieee-p1363 verify, and fail once changed', () => {
    for (let i = 0; i < 50; i++) {
      const input = Buffer.from(`${Buffer.from(JSON.stringify({ alg })).toString('base64url')}.${Buffer.from(JSON.stringify({ n: i })).toString('base64url')}`);
      const signature = nodeSign(hash, input, p1363(privateKey));
      const jws = { header: { alg }, claims: { n: i }, signingInput: input, signature };
      expect(verifyCompactJws(jws, alg, publicKey)).toBe(true);
      const changed = Buffer.from(signature);
      changed[i % size]! ^= 0x01;
      expect(verifyCompactJws({ ...jws, signature: changed }, alg, publicKey)).toBe(false);
    }
  });

  it('keep an R or an S that starts with a zero byte at full width, both ways', () => {
    const zeroR = signatureWhere(alg, privateKey, (rs) => rs[0] === 0);
    const zeroS = signatureWhere(alg, privateKey, (rs) => rs[half] === 0);
    for (const jws of [zeroR, zeroS]) {
      expect(jws.signature).toHaveLength(size);
      expect(nodeVerify(hash, jws.signingInput, p1363(publicKey), jws.signature)).toBe(true);
      expect(verifyCompactJws(jws, alg, publicKey)).toBe(true);
    }
  });

  it('check an R and an S with the high bit set (a padding zero in DER)', () => {
    // P-521's 66-byte values start with 0 or 1: there the byte after the leading zero counts.
    const highBit = (value: Buffer): boolean => value.find((byte) => byte !== 0)! >= 0x80;
    const high = signatureWhere(alg, privateKey, (rs) => highBit(rs.subarray(0, half)) && highBit(rs.subarray(half)));
    expect(verifyCompactJws(high, alg, publicKey)).toBe(true);
    expect(nodeVerify(hash, high.signingInput, p1363(publicKey), high.signature)).toBe(true);
  });

  it('refuse a signature of another length, R or S of zero, and another key', () => {
    const jws = parseCompactJws(signCompactJws(privateKey, alg)({ alg }, { n: 1 }));
    expect(verifyCompactJws({ ...jws, signature: jws.signature.subarray(1) }, alg, publicKey)).toBe(false);
    expect(verifyCompactJws({ ...jws, signature: Buffer.concat([jws.signature, Buffer.alloc(1)]) }, alg, publicKey)).toBe(false);
    expect(verifyCompactJws({ ...jws, signature: Buffer.alloc(size) }, alg, publicKey)).toBe(false);
    expect(verifyCompactJws({ ...jws, signature: Buffer.concat([Buffer.alloc(half), jws.signature.subarray(half)]) }, alg, publicKey)).toBe(false);
    const other = generateKeyPairSync('ec', { namedCurve }).publicKey;
    expect(verifyCompactJws(jws, alg, other)).toBe(false);
  });
});

describe('the DER reader', () => {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const der = nodeSign('sha256', Buffer.from('x'), privateKey);

  it('reads what node:crypto signs as the R || S it checks, and writes it back byte for byte', () => {
    expect(nodeVerify('sha256', Buffer.from('x'), p1363(publicKey), derToRs(der, 32))).toBe(true);
    expect(rsToDer(derToRs(der, 32))).toEqual(der);
  });

  it('refuses what is not a DER signature of the curve', () => {
    expect(() => derToRs(Buffer.alloc(0), 32)).toThrow('not a DER ECDSA signature');
    expect(() => derToRs(der.subarray(0, der.length - 1), 32)).toThrow('wrong length');
    expect(() => derToRs(Buffer.concat([der, Buffer.of(0)]), 32)).toThrow('wrong length');
    expect(() => derToRs(der, 16)).toThrow('wider than the curve');
    const noIntegers = Buffer.from(der);
    noIntegers[2] = 0x04;
    expect(() => derToRs(noIntegers, 32)).toThrow('without its integers');
  });
});
