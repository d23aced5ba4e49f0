/** The secret types this plugin judges, and the parsed credential its parsers produce. */
export const THUMBPRINT_SECRET = 'X509Thumbprint';
export const NAME_SECRET = 'X509Name';
export const CERTIFICATE_SECRET = 'X509CertificateBase64';
export const CERTIFICATE_SECRET_TYPES: readonly string[] = [THUMBPRINT_SECRET, NAME_SECRET, CERTIFICATE_SECRET];

/** `ParsedSecret.type` of a TLS client certificate; `decoded` is the host's `ClientCertificate`. */
export const PARSED_CERTIFICATE = 'X509Certificate';
