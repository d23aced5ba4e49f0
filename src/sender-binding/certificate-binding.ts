/**
 * Certificate-bound access tokens (RFC 8705 §3): which token requests bind their access token
 * to the TLS client certificate, as `cnf["x5t#S256"]` (the certificate's SHA-256 thumbprint). A
 * resource server then accepts the token only over a connection with that certificate.
 */
import type { Client } from '../config/schema.js';
import type { ClientCertificate } from '../sdk/contracts.js';
import type { Confirmation } from '../sdk/dpop.js';
import { InvalidRequest } from '../sdk/errors.js';

export interface CertificateBindingOptions {
  /** `mtls.certificateBoundAccessTokens`: bind the tokens of every client that authenticated with its certificate. */
  readonly bindCertificateAuthenticated: boolean;
}

export type CertificateBinding = (
  client: Client,
  authenticated: { readonly fromConnection?: boolean | undefined },
  certificate: ClientCertificate | undefined,
) => Pick<Confirmation, 'x5t#S256'> | undefined;

export function certificateBinding(options: CertificateBindingOptions): CertificateBinding {
  return (client, authenticated, certificate) => {
    if (client.requireCertificateBoundTokens) {
      if (certificate === undefined) {
        throw new InvalidRequest('This client must present a TLS client certificate: its access tokens are bound to it.', {
          logDetail: `client "${client.clientId}" requires certificate-bound tokens and sent no client certificate`,
        });
      }
      return { 'x5t#S256': certificate.thumbprint };
    }
    if (options.bindCertificateAuthenticated && authenticated.fromConnection === true && certificate !== undefined) {
      return { 'x5t#S256': certificate.thumbprint };
    }
    return undefined;
  };
}
