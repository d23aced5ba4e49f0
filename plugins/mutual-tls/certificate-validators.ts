/**
 * Judges the connection's certificate against a holder's certificate secrets (RFC 8705 §2):
 * - `X509Thumbprint`: the certificate is the pinned one (its SHA-256 thumbprint);
 * - `X509Name`: a CA of `mtls.clientCa` issued it and its subject is the configured name
 *   (`tls_client_auth`, §2.1.2 `tls_client_auth_subject_dn`);
 * - `X509CertificateBase64`: the certificate is the registered one (`self_signed_tls_client_auth`, §2.2).
 * Every one refuses a certificate outside its validity dates, pinned or not. The reasons go to
 * the log only; the client hears `invalid_client` whatever failed.
 */
import { canonicalName, type ClientCertificate, type Clock, type PluginDependencies, type SecretValidationResult, type SecretValidator } from 'svc/sdk';
import { StoredValues } from './stored-secrets.js';
import { CERTIFICATE_SECRET, NAME_SECRET, PARSED_CERTIFICATE, THUMBPRINT_SECRET } from './secret-types.js';

type Deps = Pick<PluginDependencies, 'config' | 'clock'>;

function certificateOf(decoded: unknown): ClientCertificate | undefined {
  const c = decoded as Partial<ClientCertificate> | undefined;
  return c !== undefined && typeof c.thumbprint === 'string' && c.certificate !== undefined ? (c as ClientCertificate) : undefined;
}

/** A reason when the certificate is not valid at `now`; `undefined` when it is. */
function outsideValidity(certificate: ClientCertificate, clock: Clock): string | undefined {
  const now = clock.now();
  if (now < Date.parse(certificate.certificate.validFrom)) return `certificate not valid before ${certificate.certificate.validFrom}`;
  if (now > Date.parse(certificate.certificate.validTo)) return `certificate expired ${certificate.certificate.validTo}`;
  return undefined;
}

function thumbprintValidator(type: string, { config, clock }: Deps, label: string): SecretValidator {
  const stored = StoredValues.fromConfig(type, config);
  return {
    parsedSecretTypes: [PARSED_CERTIFICATE],
    secretTypes: [type],
    validate({ parsed, secrets }): SecretValidationResult {
      const certificate = certificateOf(parsed.decoded);
      if (certificate === undefined) return { success: false, reason: 'no client certificate' };
      if (!secrets.some((s) => stored.of(s) === certificate.thumbprint)) {
        return { success: false, reason: `certificate does not match any of ${secrets.length} ${label}` };
      }
      const expired = outsideValidity(certificate, clock);
      return expired === undefined ? { success: true } : { success: false, reason: expired };
    },
  };
}

export const createThumbprintValidator = (deps: Deps): SecretValidator =>
  thumbprintValidator(THUMBPRINT_SECRET, deps, 'X509Thumbprint secret(s)');

export const createCertificateValidator = (deps: Deps): SecretValidator =>
  thumbprintValidator(CERTIFICATE_SECRET, deps, 'registered certificate(s) (X509CertificateBase64)');

export function createNameValidator({ config, clock }: Deps): SecretValidator {
  const stored = StoredValues.fromConfig(NAME_SECRET, config);
  return {
    parsedSecretTypes: [PARSED_CERTIFICATE],
    secretTypes: [NAME_SECRET],
    validate({ parsed, secrets }): SecretValidationResult {
      const certificate = certificateOf(parsed.decoded);
      if (certificate === undefined) return { success: false, reason: 'no client certificate' };
      // RFC 8705 §2.1: the name means something only when a CA the service trusts vouches for it.
      if (!certificate.issuedByTrustedCa) return { success: false, reason: 'certificate not issued by a CA in mtls.clientCa' };
      const subject = canonicalName(certificate.certificate.subject);
      if (subject === undefined || !secrets.some((s) => stored.of(s) === subject)) {
        return { success: false, reason: `certificate subject does not match any of ${secrets.length} X509Name secret(s)` };
      }
      const expired = outsideValidity(certificate, clock);
      return expired === undefined ? { success: true } : { success: false, reason: expired };
    },
  };
}
