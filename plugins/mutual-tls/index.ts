/**
 * Mutual TLS client authentication (RFC 8705 §2): the client's TLS certificate, checked against
 * `X509Thumbprint`, `X509Name` (with its CA) or `X509CertificateBase64` secrets. The service
 * hands the certificate over (`CredentialSource.clientCertificate`); see README.md for how to
 * turn mutual TLS on. Delete this folder and certificates no longer authenticate anyone.
 */
import { definePlugin } from 'svc/sdk';
import { createSelfSignedParser, createTlsClientAuthParser } from './certificate-parser.js';
import { createCertificateValidator, createNameValidator, createThumbprintValidator } from './certificate-validators.js';

export default definePlugin({
  name: 'mutual-tls',
  secretParsers: [createTlsClientAuthParser, createSelfSignedParser],
  secretValidators: [createThumbprintValidator, createNameValidator, createCertificateValidator],
});
