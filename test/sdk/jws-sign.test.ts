import { createPrivateKey, createPublicKey, type JsonWebKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { compactVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { signCompactJws as createCompactSigner } from '../../src/sdk/jws.js';

// The checked-in test keys (test/support/test-signing-keys.json), not fresh ones: this is about
// signing, and generating an RSA key per algorithm cost seconds on a busy machine.
const { keys } = JSON.parse(readFileSync(new URL('../support/test-signing-keys.json', import.meta.url), 'utf8')) as { keys: Record<string, JsonWebKey> };
const material: Record<string, string> = { ES256: 'P-256', ES384: 'P-384', ES512: 'P-521', EdDSA: 'Ed25519' };
const keyPair = (alg: string) => {
  const privateKey = createPrivateKey({ key: keys[material[alg] ?? 'RSA']!, format: 'jwk' });
  return { privateKey, publicKey: createPublicKey(privateKey) };
};

describe('compact signer', () => {
  it.each(['ES256', 'ES384', 'ES512', 'RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'EdDSA'])(
    'makes %s tokens that jose verifies',
    async (alg) => {
      // Keys reach the signer the way the key ring makes them: from the private JWK.
      const { privateKey, publicKey } = keyPair(alg);
      const sign = createCompactSigner(privateKey, alg);
      const token = sign({ alg, typ: 'at+jwt', kid: 'k1' }, { sub: 'alice', n: 1 });
      const { payload, protectedHeader } = await compactVerify(token, publicKey, { algorithms: [alg] });
      expect(protectedHeader).toEqual({ alg, typ: 'at+jwt', kid: 'k1' });
      expect(JSON.parse(new TextDecoder().decode(payload))).toEqual({ sub: 'alice', n: 1 });
    },
  );

  it('rejects an algorithm it does not know', async () => {
    const key = keyPair('ES256').privateKey;
    expect(() => createCompactSigner(key, 'HS256')).toThrow('unsupported JWS algorithm HS256');
  });
});
