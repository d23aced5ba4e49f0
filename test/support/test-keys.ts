/**
 * A memory store that already holds a signing key for every algorithm a test server signs with,
 * so a server boot does not generate an ES256 and an RSA-2048 key (about 160 test files start
 * servers; RSA generation alone cost tens to hundreds of milliseconds per boot on a busy machine).
 *
 * The key material is `test-signing-keys.json`: TEST KEYS ONLY, published in this repository.
 * Each server still gets keys of its own kid, made active at its clock's now, as the key ring
 * would have created them: a token of one server is unknown to another. Production start-up
 * is unchanged; this only fills the store the ring reads (the same seam a restarted node uses).
 * Tests of key generation and rotation pass their own store or config and keep generating.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { JWK } from 'jose';
import type { ResolvedConfig, SigningAlgorithm } from '../../src/config/schema.js';
import { createKeyProtector, type KeyProtector } from '../../src/oauth/keys/key-protection.js';
import type { Clock } from '../../src/sdk/contracts.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import type { Store } from '../../src/store/store.js';

const { keys } = JSON.parse(readFileSync(new URL('./test-signing-keys.json', import.meta.url), 'utf8')) as { keys: Record<string, JWK> };

/** The key type each algorithm signs with; one RSA key serves every RS and PS algorithm. */
const material: Record<SigningAlgorithm, string> = {
  ES256: 'P-256', ES384: 'P-384', ES512: 'P-521', EdDSA: 'Ed25519',
  RS256: 'RSA', RS384: 'RSA', RS512: 'RSA', PS256: 'RSA', PS384: 'RSA', PS512: 'RSA',
};


/**
 * A memory store with one active key per algorithm of `config`, or undefined when the config
 * names keys of its own (`signing.keys`: those take precedence, and the ring must see them alone),
 * another store, or key-encryption keys that start-up would refuse.
 */
export async function memoryStoreWithTestKeys(config: ResolvedConfig, clock: Clock): Promise<Store | undefined> {
  if (config.store !== 'memory' || config.signing.keys.length > 0) return undefined;
  let protector: KeyProtector;
  try {
    protector = createKeyProtector(config.signing.keyEncryptionKeys);
  } catch {
    // A test of a bad key-encryption key: start-up must meet it as it would.
    return undefined;
  }
  const store = createMemoryStore();
  await store.migrate();
  const now = clock.now();
  for (const alg of new Set([config.signing.accessTokenAlgorithm, ...config.signing.idTokenAlgorithms])) {
    const kid = randomUUID().replaceAll('-', '');
    const privateJwk = JSON.stringify(keys[material[alg]]);
    await store.addSigningKey({ kid, alg, privateJwk: protector.seal(kid, alg, privateJwk), createdAt: now, activatesAt: now, retiresAt: undefined });
  }
  return store;
}

/**
 * The test keys for the default algorithms (ES256 and RS256) as private JWK files in `dir`, for a
 * config file's `signing.keys`: a CLI command or a child process that builds the app then loads
 * them instead of generating keys. Only where the test is not about signing keys.
 */
export function testKeyFiles(dir: string): Array<{ path: string }> {
  return (['P-256', 'RSA'] as const).map((name) => {
    const path = join(dir, `test-signing-key-${name}.jwk.json`);
    writeFileSync(path, JSON.stringify(keys[name]));
    return { path };
  });
}
