/**
 * The operators of an admin API behind mutual TLS (`admin.tls.clients`): each entry names a
 * client certificate, by its subject or by its SHA-256 thumbprint, and the operator it stands
 * for, with the access a token's scope would give (`admin` everything, `admin.read` reading).
 * Thumbprints are compared in base64url, whichever way they were written (`normalThumbprint`).
 */
import { createHash, type X509Certificate } from 'node:crypto';
import { normalThumbprint } from '../config/certificate-thumbprint.js';
import { canonicalName } from '../sdk/distinguished-name.js';

export interface OperatorCertificateEntry {
  readonly subject?: string | undefined;
  readonly thumbprint?: string | undefined;
  readonly operator: string;
  readonly scope: 'admin' | 'admin.read';
}

/** A certificate as the audit names it: never more than its subject and thumbprint. */
export interface CertificateIdentity {
  readonly subject: string;
  /** base64url SHA-256 of the DER. */
  readonly thumbprint: string;
}

/** Node prints a subject one attribute a line, in the certificate's order; the audit shows it on one line, as the boot messages do. */
export function subjectOf(certificate: X509Certificate): string {
  return certificate.subject.split('\n').join(', ');
}

export function identityOf(certificate: X509Certificate): CertificateIdentity {
  return { subject: subjectOf(certificate), thumbprint: createHash('sha256').update(certificate.raw).digest('base64url') };
}

export interface OperatorMatch {
  readonly operator: string;
  /** `Access` of `authentication.ts`, which imports this file's types. */
  readonly access: 'read' | 'write';
}

/** Finds the operator a certificate stands for; built once at start-up from the resolved entries. */
export function operatorCertificates(entries: readonly OperatorCertificateEntry[]): (certificate: X509Certificate, identity: CertificateIdentity) => OperatorMatch | undefined {
  const byThumbprint = new Map<string, OperatorMatch>();
  const bySubject = new Map<string, OperatorMatch>();
  for (const entry of entries) {
    const match: OperatorMatch = { operator: entry.operator, access: entry.scope === 'admin' ? 'write' : 'read' };
    if (entry.thumbprint !== undefined) byThumbprint.set(normalThumbprint(entry.thumbprint)!, match);
    if (entry.subject !== undefined) bySubject.set(canonicalName(entry.subject)!, match);
  }
  // A pinned certificate names exactly one; a subject any certificate the CA issued under it.
  return (certificate, identity) => byThumbprint.get(identity.thumbprint) ?? bySubject.get(canonicalName(certificate.subject) ?? '');
}
