/**
 * Workload identity federation: a client authenticates with a token its platform issued — a
 * Kubernetes service account token, a GitHub Actions OIDC token, a SPIFFE JWT-SVID — sent as a
 * `jwt-bearer` client assertion (RFC 7523) with its `client_id`, and checked against the
 * client's `FederatedCredential` secrets. See README.md.
 *
 * Only a validator: the assertion arrives through the `private_key_jwt` parser (same wire
 * format), so discovery lists nothing new.
 */
import { definePlugin } from 'svc/sdk';
import { readOptions } from './options.js';
import { createFederatedValidator } from './token-validator.js';

export default definePlugin({
  name: 'workload-identity',
  options: readOptions,
  secretValidators: [createFederatedValidator],
});
