/**
 * The host's door to this plugin's client keys for what clients sign besides assertions: signed
 * request objects (RFC 9101 §4). The same keys (`X509CertificateBase64`, `JsonWebKey`), the same
 * selection by `kid`, fit and dates as for an assertion; the host checks the claims.
 */
import type { ClientSignatureVerifier, PluginDependencies } from 'svc/sdk';
import { ClientKeys, KEY_SECRET_TYPES } from './client-keys.js';
import { selectKeys, verifiedClaims } from './key-selection.js';
import type { PrivateKeyJwtOptions } from './options.js';
import { AssertionRejected, reject, show } from './rejection.js';

export function createRequestObjectVerifier(deps: Pick<PluginDependencies<PrivateKeyJwtOptions>, 'config' | 'clock'>): ClientSignatureVerifier {
  const clientKeys = ClientKeys.forConfig(deps.config);
  return {
    secretTypes: KEY_SECRET_TYPES,
    verify(jws, alg, secrets) {
      try {
        const { kid } = jws.header;
        if (kid !== undefined && typeof kid !== 'string') reject(`kid is not a string: ${show(kid)}`);
        const { keys, unusable } = clientKeys.keysFor(secrets);
        verifiedClaims(jws, alg, selectKeys(keys, unusable, { alg, kid }, deps.clock.now()));
        return { success: true };
      } catch (error) {
        if (error instanceof AssertionRejected) return { success: false, reason: error.message };
        throw error;
      }
    },
  };
}
