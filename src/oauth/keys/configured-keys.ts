/**
 * Keys given in the config (`signing.keys`): PEM PKCS#8 or private JWK, from a file or an
 * environment variable. Imported once at start-up; a bad key stops start-up naming its source.
 */
import { readFileSync } from 'node:fs';
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, type JWK } from 'jose';
import { BootError } from '../../config/boot-error.js';
import type { KeySource } from '../../config/schema.js';
import { signingKeyOf, type SigningKey } from './signing-key.js';

function algFor(jwk: JWK): string | undefined {
  if (jwk.alg) return jwk.alg;
  if (jwk.kty === 'RSA') return 'RS256';
  if (jwk.kty === 'EC') return { 'P-256': 'ES256', 'P-384': 'ES384', 'P-521': 'ES512' }[jwk.crv ?? ''];
  if (jwk.kty === 'OKP' && jwk.crv === 'Ed25519') return 'EdDSA';
  return undefined;
}

async function loadOne(source: KeySource, index: number): Promise<SigningKey> {
  const where = 'path' in source ? `signing.keys[${index}] (${source.path})` : `signing.keys[${index}] ($${source.env})`;
  let text: string | undefined;
  try {
    text = 'path' in source ? readFileSync(source.path, 'utf8') : process.env[source.env];
  } catch (err) {
    throw new BootError('KEYS_INVALID', `${where}: cannot read the key file: ${(err as Error).message}`);
  }
  if (!text) throw new BootError('KEYS_INVALID', `${where}: empty or unset`);
  try {
    const privateJwk: JWK = text.trim().startsWith('{')
      ? (JSON.parse(text) as JWK)
      : ((await exportJWK(createPrivateKey(text))) as JWK);
    if (!privateJwk.d) throw new Error('expected a private key');
    const alg = algFor(privateJwk);
    if (!alg) throw new Error(`unsupported key type ${privateJwk.kty}`);
    const publicPart = await exportJWK(createPublicKey({ key: privateJwk as never, format: 'jwk' }));
    const kid = privateJwk.kid ?? (await calculateJwkThumbprint(publicPart));
    return await signingKeyOf(kid, alg, privateJwk, publicPart);
  } catch (err) {
    if (err instanceof BootError) throw err;
    throw new BootError('KEYS_INVALID', `${where}: not a usable private key (PEM PKCS#8 or JWK): ${(err as Error).message}`);
  }
}

export function loadConfiguredKeys(sources: readonly KeySource[]): Promise<SigningKey[]> {
  return Promise.all(sources.map(loadOne));
}
