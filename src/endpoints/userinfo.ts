/**
 * GET/POST /connect/userinfo (OIDC Core §5.3): the claims of the user an access token stands
 * for, as far as its identity scopes release them. The token comes as a Bearer header or, on
 * POST, as the `access_token` form parameter (RFC 6750 §2.1–2.2), never both. A token that is
 * missing, inactive or stands for no user is 401 `invalid_token`; one without `openid` is 403
 * `insufficient_scope` (RFC 6750 §3.1), each with its `WWW-Authenticate` challenge.
 */
import type { ResolvedConfig } from '../config/schema.js';
import type { ClientCertificate, JsonValue, ResourceOwnerValidator, TokenValidator } from '../sdk/contracts.js';
import { InvalidRequest, OAuthError } from '../oauth/errors.js';

export interface UserInfoRequest {
  readonly authorization: string | undefined;
  /** The POSTed form, empty for GET. */
  readonly params: ReadonlyMap<string, string>;
  /** The TLS client certificate of the request (mutual TLS), when one arrived. */
  readonly clientCertificate?: ClientCertificate | undefined;
}

function bearerError(code: 'invalid_token' | 'insufficient_scope', description: string, logDetail: string): OAuthError {
  return new OAuthError(code, description, {
    logDetail,
    headers: { 'WWW-Authenticate': `Bearer realm="svc", error="${code}", error_description="${description}"` },
  });
}

export function createUserInfoEndpoint({ config, tokenValidator, users }: { config: ResolvedConfig; tokenValidator: TokenValidator; users: ResourceOwnerValidator }) {
  const claimsByScope = new Map(config.identityResources.map((r) => [r.name, r.claims]));

  function tokenOf(request: UserInfoRequest): string {
    const header = request.authorization;
    const inBody = request.params.get('access_token');
    if (header !== undefined && inBody !== undefined) throw new InvalidRequest('Send the access token in one place only.');
    if (header !== undefined) {
      const match = /^Bearer +([\x21-\x7E]+) *$/i.exec(header);
      if (!match) throw bearerError('invalid_token', 'The access token is missing or invalid.', 'Authorization header is not Bearer');
      return match[1]!;
    }
    if (inBody === undefined) throw bearerError('invalid_token', 'The access token is missing or invalid.', 'no access token');
    return inBody;
  }

  return async function userInfo(request: UserInfoRequest): Promise<Record<string, JsonValue>> {
    const validation = await tokenValidator.validateAccessToken(tokenOf(request));
    if (!validation.active) throw bearerError('invalid_token', 'The access token is missing or invalid.', validation.reason);
    const { claims } = validation;
    // RFC 8705 §3: a certificate-bound token is good only over a connection with that certificate.
    const bound = (claims.cnf as { 'x5t#S256'?: JsonValue } | undefined)?.['x5t#S256'];
    if (bound !== undefined && bound !== request.clientCertificate?.thumbprint) {
      throw bearerError('invalid_token', 'The access token is missing or invalid.', 'certificate-bound token without its client certificate');
    }
    // Only tokens that stand for a user carry auth_time (see token-issuer.ts).
    if (claims.auth_time === undefined) throw bearerError('invalid_token', 'The access token is missing or invalid.', 'token stands for no user');
    const scopes = claims.scope.split(' ');
    if (!scopes.includes('openid')) throw bearerError('insufficient_scope', 'The access token lacks the openid scope.', 'no openid scope');
    const user = await users.findBySubject(claims.sub);
    if (!user) throw bearerError('invalid_token', 'The access token is missing or invalid.', 'user no longer exists');
    const out: Record<string, JsonValue> = { sub: claims.sub };
    for (const scope of scopes) {
      for (const name of claimsByScope.get(scope) ?? []) {
        const value = user.claims?.[name];
        if (value !== undefined && name !== 'sub') out[name] = value;
      }
    }
    return out;
  };
}
