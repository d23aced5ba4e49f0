/**
 * Who calls an admin API behind mutual TLS (`admin.tls`, issue 39): the client certificate of the
 * connection, verified in the handshake against `admin.tls.clientCa` (and no other CA), then
 * looked up in `admin.tls.clients` by thumbprint or subject. The entry says the operator's name
 * (what the audit events call its `clientId`) and its access, as the scope of a token would.
 *
 * The handshake asks for a certificate but never fails without one (`loadAdminTlsOptions`), so
 * every refusal is a problem the caller can read: no certificate, or one the CA did not issue
 * or that expired, is 401; a good certificate no entry names is 403. Access tokens are not
 * read here: on this listener the certificate is the credential.
 */
import type { TLSSocket } from 'node:tls';
import type { Context } from 'koa';
import type { Operator } from './authentication.js';
import { identityOf, operatorCertificates, type CertificateIdentity, type OperatorCertificateEntry } from './operator-certificates.js';
import { AdminProblem } from './problem.js';

/** Where the audit finds the certificate of a call, accepted or not (`audit.ts`). */
export const certificateStateKey = 'adminCertificate';

/** OpenSSL's verification codes a client most likely meets, in words. */
const verificationProblems: Readonly<Record<string, string>> = {
  CERT_HAS_EXPIRED: 'it has expired',
  CERT_NOT_YET_VALID: 'it is not valid yet',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'admin.tls.clientCa did not issue it',
  UNABLE_TO_GET_ISSUER_CERT: 'admin.tls.clientCa did not issue it',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'admin.tls.clientCa did not issue it',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'it is self-signed, not issued by admin.tls.clientCa',
  SELF_SIGNED_CERT_IN_CHAIN: 'its chain ends in a CA other than admin.tls.clientCa',
  CERT_SIGNATURE_FAILURE: 'its signature does not verify',
};

export function createCertificateAuthentication(entries: readonly OperatorCertificateEntry[]) {
  const operatorOf = operatorCertificates(entries);
  return async function authenticate(ctx: Context): Promise<Operator> {
    const socket = ctx.req.socket as Partial<TLSSocket>;
    const peer = socket.encrypted === true && typeof socket.getPeerX509Certificate === 'function' ? socket.getPeerX509Certificate() : undefined;
    if (peer === undefined) {
      throw new AdminProblem(401, 'Present a client certificate issued by the CA in admin.tls.clientCa: this admin API takes mutual TLS, not access tokens.');
    }
    const certificate: CertificateIdentity = identityOf(peer);
    ctx.state[certificateStateKey] = certificate;
    if (socket.authorized !== true) {
      const code = String(socket.authorizationError ?? '');
      throw new AdminProblem(401, `The client certificate is not accepted: ${verificationProblems[code] ?? `it does not verify (${code})`}.`);
    }
    const match = operatorOf(peer, certificate);
    if (match === undefined) {
      throw new AdminProblem(403, `The client certificate "${certificate.subject}" (SHA-256 ${certificate.thumbprint}) is not one of admin.tls.clients.`);
    }
    return { clientId: match.operator, access: match.access, certificate };
  };
}
