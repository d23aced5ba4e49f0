import { hash, timingSafeEqual } from 'node:crypto';
import type { PluginDependencies, Secret, SecretValidator } from 'svc/sdk';

type Digest = { readonly algorithm: 'sha256' | 'sha512'; readonly bytes: Buffer };

/** Decodes a stored hash: base64 of a SHA-256 (32 bytes) or SHA-512 (64 bytes) digest. */
function decodeStoredHash(value: string): Digest | undefined {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(value)) return undefined;
  const bytes = Buffer.from(value, 'base64');
  if (bytes.length === 32) return { algorithm: 'sha256', bytes };
  if (bytes.length === 64) return { algorithm: 'sha512', bytes };
  return undefined;
}

/**
 * Compares the hash of the presented secret with each stored hash in constant time. Stored
 * hashes are decoded once, at start-up; a value that is not a hash stops start-up. Secrets of
 * clients from a store (the database, a plugin's) are decoded on their first use and kept while
 * the store's copy lives, so they cost no more per request than the config's.
 */
export function createHashedSecretValidator({ config }: Pick<PluginDependencies, 'config'>): SecretValidator {
  const digests = new Map<Secret, Digest>();
  const holders: Array<[string, readonly Secret[]]> = [
    ...config.clients.map((c, i): [string, readonly Secret[]] => [`clients[${i}].clientSecrets`, c.clientSecrets]),
    ...config.apiResources.map((r, i): [string, readonly Secret[]] => [`apiResources[${i}].secrets`, r.secrets]),
  ];
  for (const [path, secrets] of holders) {
    secrets.forEach((secret, i) => {
      if (secret.type !== 'SharedSecret') return;
      const digest = decodeStoredHash(secret.value);
      if (!digest) {
        throw new Error(`${path}[${i}].value: not a base64 SHA-256 or SHA-512 hash (store the output of \`svc hash-secret <secret>\`, never the secret itself)`);
      }
      digests.set(secret, digest);
    });
  }

  const fromStores = new WeakMap<Secret, Digest | null>();
  const digestOf = (secret: Secret): Digest | undefined => {
    const known = digests.get(secret) ?? fromStores.get(secret);
    if (known !== undefined) return known ?? undefined;
    const decoded = decodeStoredHash(secret.value);
    fromStores.set(secret, decoded ?? null);
    return decoded;
  };

  return {
    parsedSecretTypes: ['SharedSecret'],
    secretTypes: ['SharedSecret'],
    validate({ parsed, secrets }) {
      const presented: Partial<Record<Digest['algorithm'], Buffer>> = {};
      for (const secret of secrets) {
        const stored = digestOf(secret);
        if (!stored) continue;
        const digest = (presented[stored.algorithm] ??= hash(stored.algorithm, parsed.credential, 'buffer'));
        if (timingSafeEqual(digest, stored.bytes)) return { success: true };
      }
      return { success: false, reason: `secret does not match any of ${secrets.length} shared secret(s)` };
    },
  };
}
