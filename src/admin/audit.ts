/**
 * Every admin call is an event (`admin.request`): the operator's client id (once the token is
 * known), the method, the path and the status. Behind mutual TLS, the client certificate's
 * subject and SHA-256 thumbprint too, refused or not: which certificate acted, never more of it.
 * Never the body or the query: a body may hold a password, and an answer a new secret.
 */
import type { Context, Next } from 'koa';
import type { EventService } from '../events/event-service.js';
import type { Operator } from './authentication.js';
import { certificateStateKey } from './certificate-authentication.js';
import type { CertificateIdentity } from './operator-certificates.js';

export function auditRequests(events: EventService) {
  return async function audit(ctx: Context, next: Next): Promise<void> {
    try {
      await next();
    } finally {
      const operator = ctx.state.operator as Operator | undefined;
      const certificate = ctx.state[certificateStateKey] as CertificateIdentity | undefined;
      events.raise({
        type: 'admin.request', clientId: operator?.clientId, method: ctx.method, path: ctx.path, status: ctx.status,
        ...(certificate === undefined ? {} : { certificateSubject: certificate.subject, certificateThumbprint: certificate.thumbprint }),
      }, ctx.state.requestId as string | undefined);
    }
  };
}
