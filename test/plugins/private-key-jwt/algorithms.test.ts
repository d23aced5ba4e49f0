import { describe, expect, it } from 'vitest';
import { describeKey, keyFitsAlgorithm, type KeyShape, type SupportedAlgorithm } from '../../../plugins/private-key-jwt/algorithms.js';

const rsa: KeyShape = { kty: 'RSA', crv: undefined, pssOnly: false, alg: undefined };
const rsaPss: KeyShape = { ...rsa, pssOnly: true };
const p256: KeyShape = { kty: 'EC', crv: 'P-256', pssOnly: false, alg: undefined };
const p384: KeyShape = { ...p256, crv: 'P-384' };
const p521: KeyShape = { ...p256, crv: 'P-521' };
const ed25519: KeyShape = { kty: 'OKP', crv: 'Ed25519', pssOnly: false, alg: undefined };

const fits: Array<[string, KeyShape, SupportedAlgorithm[]]> = [
  ['RSA', rsa, ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512']],
  ['RSA-PSS', rsaPss, ['PS256', 'PS384', 'PS512']],
  ['EC P-256', p256, ['ES256']],
  ['EC P-384', p384, ['ES384']],
  ['EC P-521', p521, ['ES512']],
  ['OKP Ed25519', ed25519, ['EdDSA', 'Ed25519']],
  ['RSA (alg PS384)', { ...rsa, alg: 'PS384' }, ['PS384']],
];
const all: SupportedAlgorithm[] = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];

describe('keyFitsAlgorithm', () => {
  it.each(fits)('%s fits exactly its algorithms', (description, key, algorithms) => {
    expect(describeKey(key)).toBe(description);
    expect(all.filter((alg) => keyFitsAlgorithm(key, alg))).toEqual(algorithms);
  });
});
