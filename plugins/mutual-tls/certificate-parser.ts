/**
 * Finds the TLS client certificate of the connection (RFC 8705 §2) for the client named by the
 * body's `client_id` (RFC 8705 §2: the client "MUST include the client_id parameter"). Two
 * parsers, one per method, split by the certificate's shape so that never both answer:
 * a self-issued certificate (issuer = subject) is `self_signed_tls_client_auth` (§2.2), any other
 * `tls_client_auth` (§2.1). Both are `fromConnection`: a client that sends credentials in the
 * request (a secret, an assertion) authenticates with those, and its certificate only binds tokens.
 *
 * A parser does not answer for a config client or API resource without certificate secrets: a
 * public client, or one with shared secrets only, may present a certificate just to bind its
 * tokens (RFC 8705 §4). An id the config does not know may be a client from a store (issue 19):
 * the parser answers, and the host, which holds that client, applies the same rule to it.
 */
import type { ClientCertificate, PluginDependencies, SecretParser } from 'svc/sdk';
import { CERTIFICATE_SECRET_TYPES, PARSED_CERTIFICATE } from './secret-types.js';

type Method = 'tls_client_auth' | 'self_signed_tls_client_auth';

/** The config's ids that hold no certificate secret, by kind. */
function configIdsWithoutCertificates(config: PluginDependencies['config']): { clients: ReadonlySet<string>; apis: ReadonlySet<string> } {
  const lacks = (secrets: readonly { type: string }[]): boolean => !secrets.some((s) => CERTIFICATE_SECRET_TYPES.includes(s.type));
  return {
    clients: new Set(config.clients.filter((c) => lacks(c.clientSecrets)).map((c) => c.clientId)),
    apis: new Set(config.apiResources.filter((r) => lacks(r.secrets)).map((r) => r.name)),
  };
}

/**
 * Issuer and subject are the same name: the certificate signs itself (RFC 8705 §2.2). By name
 * only: OpenSSL's issuer check also wants keyCertSign, which a client's own certificate lacks.
 */
export function isSelfIssued(certificate: ClientCertificate['certificate']): boolean {
  return certificate.issuer === certificate.subject;
}

function createParser(method: Method, { config }: Pick<PluginDependencies, 'config'>): SecretParser {
  const without = configIdsWithoutCertificates(config);
  const selfSigned = method === 'self_signed_tls_client_auth';
  return {
    authenticationMethod: method,
    parsedSecretType: PARSED_CERTIFICATE,
    fromConnection: true,
    parse({ params, clientCertificate, endpoint }) {
      if (clientCertificate === undefined) return undefined;
      const id = params.get('client_id');
      if (id === undefined || (endpoint === 'introspection' ? without.apis : without.clients).has(id)) return undefined;
      if (isSelfIssued(clientCertificate.certificate) !== selfSigned) return undefined;
      return { id, credential: clientCertificate.thumbprint, type: PARSED_CERTIFICATE, decoded: clientCertificate };
    },
  };
}

export const createTlsClientAuthParser = (deps: Pick<PluginDependencies, 'config'>): SecretParser => createParser('tls_client_auth', deps);
export const createSelfSignedParser = (deps: Pick<PluginDependencies, 'config'>): SecretParser => createParser('self_signed_tls_client_auth', deps);
