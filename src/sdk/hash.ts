import { createHash } from 'node:crypto';

/**
 * The stored form of a shared secret: base64 of the SHA-256 digest of its UTF-8 bytes, the same
 * encoding as IdentityServer's `"secret".Sha256()`, so existing configs move over.
 */
export function hashSecret(plain: string, algorithm: 'sha256' | 'sha512' = 'sha256'): string {
  return createHash(algorithm).update(plain, 'utf8').digest('base64');
}
