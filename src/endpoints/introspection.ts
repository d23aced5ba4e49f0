/**
 * POST /connect/introspect (RFC 7662). The caller is an API resource authenticating with its
 * own secrets. It learns about a token only as far as the token is meant for it: an inactive
 * token and a token for another API look the same (`{ active: false }`).
 *
 * An API that asks for it (`Accept: application/token-introspection+jwt`, RFC 9701 §4) gets
 * the same answer as a JWT signed by the service, so it can keep the answer as evidence or pass
 * it on; everyone else gets the plain JSON of RFC 7662.
 */
import type { ApiResource } from '../config/schema.js';
import type { AccessTokenClaims, Clock, JsonValue, TokenValidator } from '../sdk/contracts.js';
import type { ClientAuthenticator } from '../client-authentication/client-authenticator.js';
import { InvalidRequest } from '../oauth/errors.js';
import { boundJkt } from '../sdk/dpop.js';
import { audienceOf } from '../sdk/resources.js';
import type { WindowLimit } from '../throttling/rate-limits.js';
import { tooManyRequests } from '../throttling/too-many-requests.js';
import type { FormRequest } from './form-request.js';
import type { EventService } from '../events/event-service.js';
import { wantsJwtResponse, type IntrospectionSigner } from './introspection-jwt.js';

// `cnf` (RFC 7800 §3.1): the key a sender-constrained token is bound to (RFC 9449 §6.2, RFC 8705 §3.2).
// `acr` and `amr` with `auth_time` (RFC 9470 §3, issue 35): an API can tell a token that needs a step-up.
const reported = ['iss', 'client_id', 'aud', 'iat', 'nbf', 'exp', 'jti', 'auth_time', 'acr', 'amr', 'act', 'cnf'] as const;
const inactive = (): Record<string, JsonValue> => ({ active: false });

/** The answer as the route sends it: RFC 7662's JSON, or RFC 9701's signed JWT. */
export type IntrospectionAnswer =
  | { readonly kind: 'json'; readonly body: Record<string, JsonValue> }
  | { readonly kind: 'jwt'; readonly jwt: string };

/** The token's scopes that belong to the caller; none when its audience leaves the caller out. */
function scopesFor(api: ApiResource, claims: AccessTokenClaims): string[] {
  // A token whose audience was narrowed (RFC 8693 `audience`, RFC 8707 `resource`) is not for an
  // API left out of `aud`. An API is in `aud` by its identifier (`audienceOf`: its `uri` when it
  // has one), or by its name in a token issued before it had a `uri`.
  const audiences: readonly unknown[] = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  if (!(audiences.includes(audienceOf(api)) || audiences.includes(api.name)) || typeof claims.scope !== 'string') return [];
  return claims.scope.split(' ').filter((s) => api.scopes.includes(s));
}

export function createIntrospectionEndpoint(deps: {
  clientAuthenticator: ClientAuthenticator;
  tokenValidator: TokenValidator;
  /**
   * Inactive answers per API resource (RFC 7662 §4, token scanning). Misses rather than all
   * calls: a scanner's guesses are nearly all misses, while an API checking live tokens, at
   * any rate, has almost none, so the limit stops the one and never meets the other.
   */
  inactiveLimit: WindowLimit;
  clock: Clock;
  events?: EventService;
  /** Signs RFC 9701 answers; without it every answer is JSON. */
  signer?: IntrospectionSigner | undefined;
}) {
  function checkInactiveLimit(apiResource: ApiResource): void {
    const wait = deps.inactiveLimit.waitMs(apiResource.name, deps.clock.now());
    if (wait > 0) throw tooManyRequests(wait, 'Too many inactive tokens introspected', `introspection limited for API "${apiResource.name}"`);
  }

  /** `accept` is the request's Accept header: RFC 9701 §4 asks for the JWT answer with it. */
  return async function introspectionEndpoint(request: FormRequest, accept?: string): Promise<IntrospectionAnswer> {
    const { apiResource } = await deps.clientAuthenticator.authenticateApiResource({ ...request, endpoint: 'introspection' });
    checkInactiveLimit(apiResource);
    const token = request.params.get('token');
    if (token === undefined) throw new InvalidRequest('The token parameter is missing.');
    const response = await introspect(apiResource, token);
    if (response.active !== true) deps.inactiveLimit.hit(apiResource.name, deps.clock.now());
    deps.events?.raise(
      {
        type: 'token.introspected',
        apiResource: apiResource.name,
        active: response.active === true,
        clientId: typeof response.client_id === 'string' ? response.client_id : undefined,
      },
      request.requestId,
    );
    if (deps.signer && wantsJwtResponse(accept)) return { kind: 'jwt', jwt: await deps.signer.sign(apiResource, response) };
    return { kind: 'json', body: response };
  };

  async function introspect(apiResource: ApiResource, token: string): Promise<Record<string, JsonValue>> {
    const result = await deps.tokenValidator.validateAccessToken(token);
    if (!result.active) return inactive();
    const scopes = scopesFor(apiResource, result.claims);
    if (scopes.length === 0) return inactive();
    const response: Record<string, JsonValue> = { active: true, scope: scopes.join(' '), token_type: boundJkt(result.claims) === undefined ? 'Bearer' : 'DPoP' };
    for (const name of reported) {
      const value = result.claims[name];
      if (value !== undefined) response[name] = value as JsonValue;
    }
    // A client-only token's `sub` is the client itself (RFC 9068 §2.2); report a subject only for a user.
    if (result.claims.auth_time !== undefined) response.sub = result.claims.sub;
    return response;
  }
}
