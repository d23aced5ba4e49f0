/**
 * The secrets the sample deployment (`svc.config.ts`) and the README's examples publish: anyone
 * who has read the README can authenticate as a client or API that still holds one. Start-up
 * names those clients and APIs (`create-app.ts`), never the secret.
 *
 * `svc init` makes random secrets of its own, so its starter config holds none of these.
 */
import { createHash } from 'node:crypto';
import { hashSecret } from '../sdk/hash.js';
import type { ResolvedConfig, Secret } from './schema.js';

/** The demo plain texts of `svc.config.ts`'s comments and the README's curl examples. */
const publishedPlainSecrets = [
  'm2m-secret', 'reference-secret', 'password-client-secret', 'delegation-secret', 'webapp-secret', 'api1-secret', 'api2-secret',
];

/**
 * SHA-256 (base64url) of the certificate `svc.config.ts` gives `pkjwt-demo`, whose private key is
 * published in `docs/demo-keys/pkjwt-demo.pem`.
 */
const publishedCertificateDigests = new Set(['LXJnbUnQyltSXvPIWXw8SY8J2qxvVvN3dzxXu915bLY']);

// Both stored forms a shared secret may take (`hashSecret`), computed once.
const publishedHashes = new Set(publishedPlainSecrets.flatMap((plain) => [hashSecret(plain), hashSecret(plain, 'sha512')]));

function isPublished(secret: Secret): boolean {
  if (secret.type === 'X509CertificateBase64') {
    return publishedCertificateDigests.has(createHash('sha256').update(secret.value.replace(/\s+/g, '')).digest('base64url'));
  }
  return secret.type === 'SharedSecret' && publishedHashes.has(secret.value);
}

export interface SampleSecretsInUse {
  readonly clients: readonly string[];
  readonly apiResources: readonly string[];
}

/** The clients and API resources of the config that hold a published sample secret; `undefined` when none does. */
export function sampleSecretsInUse(config: Pick<ResolvedConfig, 'clients' | 'apiResources'>): SampleSecretsInUse | undefined {
  const clients = config.clients.filter((c) => c.clientSecrets.some(isPublished)).map((c) => c.clientId);
  const apiResources = config.apiResources.filter((r) => r.secrets.some(isPublished)).map((r) => r.name);
  return clients.length + apiResources.length > 0 ? { clients, apiResources } : undefined;
}
