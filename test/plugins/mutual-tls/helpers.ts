/** A resolved config and the host's `ClientCertificate` for the mutual-tls plugin's unit tests. */
import type { X509Certificate } from 'node:crypto';
import { checkConfig } from '../../../src/config/load.js';
import type { ResolvedConfig, SecretConfig } from '../../../src/config/schema.js';
import { describeCertificate } from '../../../src/http/client-certificate.js';
import type { ClientCertificate, Clock } from '../../../src/sdk/contracts.js';
import { nodeCertificate, type Issued } from '../../support/certificates.js';

export function configWithClient(clientSecrets: SecretConfig[], extra: { requireClientSecret?: boolean } = {}): ResolvedConfig {
  return checkConfig(
    {
      apiScopes: [{ name: 'api' }],
      apiResources: [{ name: 'api', scopes: ['api'] }],
      // A public client may not have client_credentials (issue 33): it gets a user's grant.
      clients: [{ clientId: 'partner', clientSecrets, allowedGrantTypes: [extra.requireClientSecret === false ? 'password' : 'client_credentials'], allowedScopes: ['api'], ...extra }],
    },
    '/srv/svc',
  );
}

export const clockAt = (ms: number): Clock => ({ now: () => ms });
export const systemClock: Clock = { now: () => Date.now() };

/** What the host hands to parsers for `issued`, judged against `cas`. */
export function presented(issued: Issued, cas: readonly Issued[] = [], clock: Clock = systemClock): ClientCertificate {
  const clientCas: X509Certificate[] = cas.map(nodeCertificate);
  return describeCertificate(nodeCertificate(issued), { clientCas, clock }, 'tls');
}
