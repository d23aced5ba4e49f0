import { createPrivateKey, type JsonWebKey } from 'node:crypto';
import { compactVerify, exportJWK, generateKeyPair } from 'jose';
import { describe, expect, it } from 'vitest';
import { signCompactJws as createCompactSigner } from '../../src/sdk/jws.js';

describe('compact signer', () => {
  it.each(['ES256', 'ES384', 'ES512', 'RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'EdDSA'])(
    'makes %s tokens that jose verifies',
    async (alg) => {
      const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
      // Keys reach the signer the way the key ring makes them: from the private JWK.
      const sign = createCompactSigner(createPrivateKey({ key: (await exportJWK(privateKey)) as JsonWebKey, format: 'jwk' }), alg);
      const token = sign({ alg, typ: 'at+jwt', kid: 'k1' }, { sub: 'alice', n: 1 });
      const { payload, protectedHeader } = await compactVerify(token, publicKey, { algorithms: [alg] });
      expect(protectedHeader).toEqual({ alg, typ: 'at+jwt', kid: 'k1' });
      expect(JSON.parse(new TextDecoder().decode(payload))).toEqual({ sub: 'alice', n: 1 });
    },
  );

  it('rejects an algorithm it does not know', async () => {
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    const key = createPrivateKey({ key: (await exportJWK(privateKey)) as JsonWebKey, format: 'jwk' });
    expect(() => createCompactSigner(key, 'HS256')).toThrow('unsupported JWS algorithm HS256');
  });
});
