/**
 * GET/POST /connect/userinfo (OIDC Core §5.3): the claims of the user an access token stands
 * for, as far as its identity scopes release them. The token comes as a Bearer header or, on
 * POST, as the `access_token` form parameter (RFC 6750 §2.1–2.2), never both. A token that is
 * missing, inactive or stands for no user is 401 `invalid_token`; one without `openid` is 403
 * `insufficient_scope` (RFC 6750 §3.1), each with its `WWW-Authenticate` challenge.
 *
 * With `userInfo.requiredAcr` (issue 35) a token whose sign-in did not meet that class is 401
 * `insufficient_user_authentication` (RFC 9470 §3), its challenge naming the class in `acr_values`.
 *
 * A DPoP-bound token (RFC 9449 §7) comes as `Authorization: DPoP <token>` with a proof of its key
 * whose `ath` is the token's hash. Sent as a Bearer token it is `invalid_token`; with a bad proof,
 * one of another key or a wrong `ath` it is `invalid_dpop_proof`; both 401 with a `DPoP` challenge.
 */
import { meetsAcr } from '../authorize/acr.js';
import type { ResolvedConfig } from '../config/schema.js';
import type { ClientCertificate, JsonValue, ResourceOwnerValidator, TokenValidator } from '../sdk/contracts.js';
import { InvalidDpopProof, InvalidRequest, OAuthError } from '../oauth/errors.js';
import type { DpopProofValidator } from '../sender-binding/dpop-proof-validator.js';
import { boundJkt } from '../sdk/dpop.js';
import { paths } from './urls.js';

export interface UserInfoRequest {
  readonly authorization: string | undefined;
  /** The POSTed form, empty for GET. */
  readonly params: ReadonlyMap<string, string>;
  /** The TLS client certificate of the request (mutual TLS), when one arrived. */
  readonly clientCertificate?: ClientCertificate | undefined;
  readonly method: 'GET' | 'POST';
  /** Every `DPoP` header value, as sent. */
  readonly dpop?: readonly string[] | undefined;
}

type Scheme = 'Bearer' | 'DPoP';

export function createUserInfoEndpoint({ config, tokenValidator, users, dpop }: {
  config: Pick<ResolvedConfig, 'identityResources' | 'issuer'> & { readonly userInfo?: ResolvedConfig['userInfo'] }; tokenValidator: TokenValidator; users: ResourceOwnerValidator; dpop: DpopProofValidator;
}) {
  const claimsByScope = new Map(config.identityResources.map((r) => [r.name, r.claims]));
  const url = config.issuer + paths.userinfo;
  const algs = dpop.algorithms.join(' ');
  const requiredAcr = config.userInfo?.requiredAcr;

  function bearerError(code: 'invalid_token' | 'insufficient_scope', description: string, logDetail: string, scheme: Scheme = 'Bearer'): OAuthError {
    const challenge = scheme === 'DPoP'
      ? `DPoP error="${code}", error_description="${description}", algs="${algs}"`
      : `Bearer realm="svc", error="${code}", error_description="${description}"`;
    return new OAuthError(code, description, { logDetail, headers: { 'WWW-Authenticate': challenge } });
  }

  function tokenOf(request: UserInfoRequest): { token: string; scheme: Scheme } {
    const header = request.authorization;
    const inBody = request.params.get('access_token');
    if (header !== undefined && inBody !== undefined) throw new InvalidRequest('Send the access token in one place only.');
    if (header !== undefined) {
      const match = /^(Bearer|DPoP) +([\x21-\x7E]+) *$/i.exec(header);
      if (!match) throw bearerError('invalid_token', 'The access token is missing or invalid.', 'Authorization header is neither Bearer nor DPoP');
      return { token: match[2]!, scheme: match[1]!.toLowerCase() === 'dpop' ? 'DPoP' : 'Bearer' };
    }
    if (inBody === undefined) throw bearerError('invalid_token', 'The access token is missing or invalid.', 'no access token');
    return { token: inBody, scheme: 'Bearer' };
  }

  /** RFC 9449 §7.1: a bound token only with the DPoP scheme and a proof of its key for this token. */
  async function checkBinding(request: UserInfoRequest, token: string, scheme: Scheme, jkt: string | undefined): Promise<void> {
    if (jkt === undefined) {
      if (scheme === 'DPoP') throw bearerError('invalid_token', 'The access token is missing or invalid.', 'DPoP scheme with a token that is not DPoP-bound', 'DPoP');
      return;
    }
    if (scheme !== 'DPoP') throw bearerError('invalid_token', 'The access token is missing or invalid.', 'DPoP-bound token sent as a Bearer token', 'DPoP');
    const proof = await dpop.check({ headers: request.dpop, method: request.method, url, accessToken: token }, 'resource');
    if (proof === undefined || proof.jkt !== jkt) {
      throw new InvalidDpopProof('The DPoP proof is invalid.', {
        status: 401,
        logDetail: proof === undefined ? 'DPoP scheme without a DPoP proof' : 'DPoP proof of another key than the token is bound to',
        headers: { 'WWW-Authenticate': `DPoP error="invalid_dpop_proof", error_description="The DPoP proof is invalid", algs="${algs}"` },
      });
    }
  }

  return async function userInfo(request: UserInfoRequest): Promise<Record<string, JsonValue>> {
    const { token, scheme } = tokenOf(request);
    const validation = await tokenValidator.validateAccessToken(token);
    if (!validation.active) throw bearerError('invalid_token', 'The access token is missing or invalid.', validation.reason, scheme);
    const { claims } = validation;
    await checkBinding(request, token, scheme, boundJkt(claims));
    // RFC 8705 §3: a certificate-bound token is good only over a connection with that certificate.
    const bound = (claims.cnf as { 'x5t#S256'?: JsonValue } | undefined)?.['x5t#S256'];
    if (bound !== undefined && bound !== request.clientCertificate?.thumbprint) {
      throw bearerError('invalid_token', 'The access token is missing or invalid.', 'certificate-bound token without its client certificate', scheme);
    }
    // Only tokens that stand for a user carry auth_time (see token-issuer.ts).
    if (claims.auth_time === undefined) throw bearerError('invalid_token', 'The access token is missing or invalid.', 'token stands for no user');
    const scopes = claims.scope.split(' ');
    if (!scopes.includes('openid')) throw bearerError('insufficient_scope', 'The access token lacks the openid scope.', 'no openid scope');
    // Issue 35, RFC 9470 §3: `userInfo.requiredAcr`, a sign-in of that class or a step-up: the
    // challenge names the class (`acr_values`) for the client to ask the authorization endpoint for.
    if (requiredAcr !== undefined && !meetsAcr(requiredAcr, claims)) {
      const description = 'The user must sign in with a stronger authentication.';
      throw new OAuthError('insufficient_user_authentication', description, {
        logDetail: `userInfo.requiredAcr ${requiredAcr}, token acr ${JSON.stringify(claims.acr ?? null)}`,
        headers: { 'WWW-Authenticate': `${scheme === 'DPoP' ? 'DPoP' : 'Bearer realm="svc",'} error="insufficient_user_authentication", error_description="${description}", acr_values="${requiredAcr}"` },
      });
    }
    const user = await users.findBySubject(claims.sub);
    if (!user) throw bearerError('invalid_token', 'The access token is missing or invalid.', 'user no longer exists');
    const out: Record<string, JsonValue> = { sub: claims.sub };
    // Issue 35: how the user signed in, as the ID token says it (OIDC Core §2, RFC 8176): a client
    // that reads UserInfo instead of the ID token learns the same `acr` and `amr`.
    if (claims.acr !== undefined) out.acr = claims.acr;
    if (claims.amr !== undefined) out.amr = claims.amr;
    for (const scope of scopes) {
      for (const name of claimsByScope.get(scope) ?? []) {
        const value = user.claims?.[name];
        if (value !== undefined && name !== 'sub') out[name] = value;
      }
    }
    return out;
  };
}
