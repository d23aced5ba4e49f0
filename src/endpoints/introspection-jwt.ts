/**
 * RFC 9701: the introspection answer as a signed JWT. The API asks with
 * `Accept: application/token-introspection+jwt` (§4); the answer carries the service as `iss`,
 * the API as `aud`, `iat`, and RFC 7662's JSON unchanged in the `token_introspection` claim
 * (§5). The `typ` header keeps it from being taken for an access token or an ID token (§8.1),
 * and the token's own claims stay inside `token_introspection` for the same reason.
 */
import type { ApiResource } from '../config/schema.js';
import type { Clock, JsonValue } from '../sdk/contracts.js';
import type { SigningAlgorithm } from '../config/schema.js';
import type { KeyRing } from '../oauth/keys/key-ring.js';
import { signToken } from '../oauth/keys/signing-key.js';
import type { Tracing } from '../tracing/tracing.js';

export const introspectionJwtType = 'token-introspection+jwt';
const mediaType = `application/${introspectionJwtType}`;

/**
 * Whether an Accept header asks for the JWT answer: the media type is listed and not refused
 * with `q=0` (RFC 9110 §12.5.1). Anything else, `*\/*` included, gets RFC 7662's JSON, which
 * every API understands.
 */
export function wantsJwtResponse(accept: string | undefined): boolean {
  // Media types compare case-insensitively (RFC 9110 §8.3.1); the cheap test first, for the common JSON caller.
  const lower = accept?.toLowerCase();
  if (lower === undefined || !lower.includes(introspectionJwtType)) return false;
  return lower.split(',').some((range) => {
    const [type, ...params] = range.split(';').map((part) => part.trim());
    if (type !== mediaType) return false;
    const q = params.find((param) => param.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

export interface IntrospectionSigner {
  sign(api: ApiResource, answer: Record<string, JsonValue>): Promise<string>;
}

export function createIntrospectionSigner(deps: {
  issuer: string;
  keyRing: Pick<KeyRing, 'signingKey'>;
  clock: Clock;
  tracing: Tracing;
  /** The algorithm an API's answers are signed with (RFC 9701 §6 `introspection_signed_response_alg`). */
  algorithmFor(api: ApiResource): SigningAlgorithm;
}): IntrospectionSigner {
  return {
    async sign(api, answer) {
      const alg = deps.algorithmFor(api);
      const key = deps.keyRing.signingKey(alg);
      const payload = { iss: deps.issuer, aud: api.name, iat: Math.floor(deps.clock.now() / 1000), token_introspection: answer };
      return signToken(deps.tracing, 'sign introspection response', key, { alg, typ: introspectionJwtType, kid: key.kid }, payload);
    },
  };
}
