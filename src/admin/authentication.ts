/**
 * Who calls the admin API: an access token this service issued (RFC 6750 §2.1), validated as
 * every resource of the service validates it (`token-validator.ts`: a JWT against the key ring,
 * a reference token in the store), addressed to the admin API resource (`aud`) and carrying
 * `admin` (everything) or `admin.read` (reading only). The operator is the token's `client_id`:
 * tokens come from client credentials, so the client's authentication method (a secret,
 * private_key_jwt, mutual TLS) and DPoP apply as at the token endpoint.
 *
 * A sender-constrained token needs its proof here too: a DPoP-bound one only with the DPoP scheme
 * and a proof of its key for this request (RFC 9449 §7.1); a certificate-bound one (RFC 8705 §3)
 * never, as the admin listener speaks plain HTTP on its own address and sees no certificate.
 */
import type { Context } from 'koa';
import type { TokenValidator } from '../sdk/contracts.js';
import { boundJkt } from '../sdk/dpop.js';
import type { DpopProofValidator } from '../sender-binding/dpop-proof-validator.js';
import { OAuthError } from '../oauth/errors.js';
import type { CertificateIdentity } from './operator-certificates.js';
import { AdminProblem } from './problem.js';

/** The API resource whose scopes open the admin API: the `aud` of its tokens (docs/guides/admin-api.md). */
export const adminApiResource = 'svc-admin';
export const adminScopes = { full: 'admin', read: 'admin.read' } as const;

export type Access = 'read' | 'write';

export interface Operator {
  /** The token's `client_id`, or the `operator` of a client certificate's entry: who the audit events name. */
  readonly clientId: string;
  readonly access: Access;
  /** Behind mutual TLS (`admin.tls`): the certificate the operator presented. */
  readonly certificate?: CertificateIdentity | undefined;
}

type Scheme = 'Bearer' | 'DPoP';

export function createAdminAuthentication({ tokenValidator, dpop, baseUrl }: {
  tokenValidator: TokenValidator;
  dpop: DpopProofValidator;
  /** The listener's own URL (`http://<admin.host>:<port>`): a proof's `htu` names it, never a `Host` header the caller chose. */
  baseUrl: () => string;
}) {
  const algs = dpop.algorithms.join(' ');

  function refused(detail: string, scheme: Scheme = 'Bearer', extraHeaders: Readonly<Record<string, string>> = {}): AdminProblem {
    const challenge = scheme === 'DPoP'
      ? `DPoP error="invalid_token", algs="${algs}"`
      : 'Bearer realm="svc-admin", error="invalid_token"';
    return new AdminProblem(401, detail, { headers: { ...extraHeaders, 'WWW-Authenticate': challenge } });
  }

  function tokenOf(ctx: Context): { token: string; scheme: Scheme } {
    const header = ctx.get('authorization');
    if (header === '') throw new AdminProblem(401, 'Send an admin access token: Authorization: Bearer <token>.', { headers: { 'WWW-Authenticate': 'Bearer realm="svc-admin"' } });
    const match = /^(Bearer|DPoP) +([\x21-\x7E]+) *$/i.exec(header);
    if (!match) throw refused('The Authorization header is neither Bearer nor DPoP.');
    return { token: match[2]!, scheme: match[1]!.toLowerCase() === 'dpop' ? 'DPoP' : 'Bearer' };
  }

  /** RFC 9449 §7.1: the DPoP proof of this request, for this token, by the key it is bound to. */
  async function checkDpop(ctx: Context, token: string, scheme: Scheme, jkt: string | undefined): Promise<void> {
    if (jkt === undefined) {
      if (scheme === 'DPoP') throw refused('The access token is not DPoP-bound: send it as a Bearer token.', 'DPoP');
      return;
    }
    if (scheme !== 'DPoP') throw refused('The access token is DPoP-bound: send it with the DPoP scheme and a DPoP proof.', 'DPoP');
    const header = ctx.req.headers.dpop;
    let proof;
    try {
      proof = await dpop.check({ headers: header === undefined ? undefined : [header].flat(), method: ctx.method, url: baseUrl() + ctx.path, accessToken: token }, 'resource');
    } catch (err) {
      // With `dpop.requireNonce`, the refusal carries the nonce to retry with (RFC 9449 §9): pass it on.
      if (err instanceof OAuthError) throw refused(`The DPoP proof is invalid: ${err.description}`, 'DPoP', err.headers['DPoP-Nonce'] === undefined ? {} : { 'DPoP-Nonce': err.headers['DPoP-Nonce'] });
      throw err;
    }
    if (proof === undefined) throw refused('The access token is DPoP-bound: send a DPoP proof.', 'DPoP');
    if (proof.jkt !== jkt) throw refused('The DPoP proof is signed by another key than the token is bound to.', 'DPoP');
  }

  /** The operator behind the request, or a 401 problem. Whether they may do what they ask is `allow`'s. */
  return async function authenticate(ctx: Context): Promise<Operator> {
    const { token, scheme } = tokenOf(ctx);
    const validation = await tokenValidator.validateAccessToken(token);
    if (!validation.active) throw refused('The access token is missing, expired or revoked.', scheme);
    const { claims } = validation;
    const audience = [claims.aud].flat();
    if (!audience.includes(adminApiResource)) throw refused(`The access token is not addressed to the admin API (aud "${adminApiResource}").`, scheme);
    if ((claims.cnf as Record<string, unknown> | undefined)?.['x5t#S256'] !== undefined) {
      throw refused('The access token is bound to a TLS client certificate, which the admin listener does not receive: use a token that is not certificate-bound.', scheme);
    }
    await checkDpop(ctx, token, scheme, boundJkt(claims));
    const scopes = typeof claims.scope === 'string' ? claims.scope.split(' ') : [];
    const access: Access | undefined = scopes.includes(adminScopes.full) ? 'write' : scopes.includes(adminScopes.read) ? 'read' : undefined;
    if (access === undefined) {
      throw new AdminProblem(403, `The access token has neither scope "${adminScopes.full}" nor "${adminScopes.read}".`, {
        headers: { 'WWW-Authenticate': `Bearer realm="svc-admin", error="insufficient_scope", scope="${adminScopes.read} ${adminScopes.full}"` },
      });
    }
    return { clientId: String(claims.client_id), access };
  };
}

/** A read needs `admin.read` or `admin` (a token's scope, a certificate entry's `scope`); a change needs `admin`. */
export function allow(operator: Operator, needed: Access): void {
  if (needed === 'write' && operator.access !== 'write' && operator.certificate !== undefined) {
    throw new AdminProblem(403, `This changes the service: the client certificate's entry in admin.tls.clients needs scope "${adminScopes.full}" (it has "${adminScopes.read}").`);
  }
  if (needed === 'write' && operator.access !== 'write') {
    throw new AdminProblem(403, `This changes the service: the access token needs scope "${adminScopes.full}" (it has "${adminScopes.read}").`, {
      headers: { 'WWW-Authenticate': `Bearer realm="svc-admin", error="insufficient_scope", scope="${adminScopes.full}"` },
    });
  }
}
