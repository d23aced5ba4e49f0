/**
 * Real signing keys for unit tests of the issuers, generated once per file (call it from
 * `beforeAll`), and the narrow key ring the issuers read: the key that signs for an algorithm.
 */
import { exportJWK, generateKeyPair } from 'jose';
import { signingKeyOf, type SigningKey } from '../../src/oauth/keys/signing-key.js';
import type { KeyRing } from '../../src/oauth/keys/key-ring.js';

export type TestAlgorithm = 'ES256' | 'ES384' | 'RS256' | 'PS256' | 'EdDSA';

export async function signingKeys(algorithms: readonly TestAlgorithm[]): Promise<Map<string, SigningKey>> {
  const keys = new Map<string, SigningKey>();
  for (const alg of algorithms) {
    const { privateKey } = await generateKeyPair(alg === 'EdDSA' ? 'Ed25519' : alg, { extractable: true });
    keys.set(alg, await signingKeyOf(`kid-${alg}`, alg, await exportJWK(privateKey)));
  }
  return keys;
}

/** Only `signingKey`, as the issuers use it; an algorithm without a key throws, as the real ring does. */
export function keyRingOf(keys: ReadonlyMap<string, SigningKey>): KeyRing {
  const unused = (): never => {
    throw new Error('not used by the issuers');
  };
  return {
    signingKey(alg) {
      const key = keys.get(alg);
      if (!key) throw new Error(`no signing key for ${alg}`);
      return key;
    },
    verificationKey: unused,
    algorithms: [...keys.keys()],
    jwksJson: unused,
    refresh: unused,
    start: unused,
    stop: unused,
    close: unused,
  };
}
