/**
 * ID tokens (OpenID Connect Core §2) for grants that represent a user and were granted
 * `openid`, with the user's claims released by the granted identity resources. Signed with the
 * client's `allowedIdentityTokenSigningAlgorithms` (its registered `id_token_signed_response_alg`),
 * else RS256, the algorithm every OIDC relying party supports (Core §3.1.3.7).
 */
import { hash } from 'node:crypto';
import type { Client, ResolvedConfig } from '../config/schema.js';
import type { Clock, GrantSubject, GrantSuccess, JsonValue, ResourceOwnerValidator } from '../sdk/contracts.js';
import type { KeyRing } from './keys/key-ring.js';
import { authenticationClaims } from './authentication-claims.js';
import { signToken } from './keys/signing-key.js';
import { newTokenId } from './handles.js';
import { tracingOff, type Tracing } from '../tracing/tracing.js';

export const idTokenLifetime = 300;
/** What a client that named no ID token algorithm gets (OIDC Core §3.1.3.7; Registration §2). */
export const defaultIdTokenAlgorithm = 'RS256';

export interface IdTokenIssuer {
  /**
   * Only a user has an ID token; the type says so. `idToken`: the grant's OIDC members (`nonce`,
   * `sid`); `accessToken`: the access token issued alongside, for `at_hash`.
   */
  issue(request: {
    client: Client;
    user: Extract<GrantSubject, { kind: 'user' }>;
    scopes: readonly string[];
    idToken?: GrantSuccess['idToken'];
    accessToken?: string;
  }): Promise<string>;
}

export function createIdTokenIssuer(deps: {
  config: Pick<ResolvedConfig, 'identityResources' | 'issuer'>;
  keyRing: KeyRing;
  clock: Clock;
  resourceOwnerValidator: ResourceOwnerValidator;
  /** A span around each signature; default none. */
  tracing?: Tracing;
}): IdTokenIssuer {
  const tracing = deps.tracing ?? tracingOff;
  const claimsByScope = new Map(deps.config.identityResources.map((r) => [r.name, r.claims]));
  return {
    async issue({ client, user: subject, scopes, idToken, accessToken }) {
      const now = Math.floor(deps.clock.now() / 1000);
      const user = await deps.resourceOwnerValidator.findBySubject(subject.id);
      const claims: Record<string, JsonValue> = {};
      for (const scope of scopes) {
        for (const name of claimsByScope.get(scope) ?? []) {
          const value = user?.claims?.[name];
          if (value !== undefined && name !== 'sub') claims[name] = value;
        }
      }
      const alg = client.allowedIdentityTokenSigningAlgorithms[0] ?? defaultIdTokenAlgorithm;
      const key = deps.keyRing.signingKey(alg);
      const oidc: Record<string, JsonValue> = {};
      if (idToken?.nonce !== undefined) oidc.nonce = idToken.nonce;
      if (idToken?.sid !== undefined) oidc.sid = idToken.sid;
      if (accessToken !== undefined) oidc.at_hash = atHash(accessToken, alg);
      // node:crypto's synchronous signer, as for access tokens: jose's WebCrypto round trip cost
      // a code redemption or a refresh about as much again as the RSA signature (issue 21).
      const payload = { ...claims, ...oidc, ...authenticationClaims(subject), jti: newTokenId(), iss: deps.config.issuer, sub: subject.id, aud: client.clientId, iat: now, exp: now + idTokenLifetime };
      return signToken(tracing, 'sign id_token', key, { alg, typ: 'JWT', kid: key.kid }, payload);
    },
  };
}

/**
 * OIDC Core §3.1.3.6: the left half of the access token's hash under the hash of the ID token's
 * `alg`, base64url. EdDSA names no hash; for Ed25519, the only EdDSA curve the service makes keys
 * on, it is SHA-512 (OpenID Connect Token Hash Algorithms 1.0).
 */
function atHash(accessToken: string, alg: string): string {
  // One-shot `hash`: no Hash object per token.
  const digest = hash(hashOf(alg), accessToken, 'buffer');
  return digest.subarray(0, digest.length / 2).toString('base64url');
}

function hashOf(alg: string): string {
  if (alg === 'EdDSA') return 'sha512';
  const bits = alg.slice(2);
  if (bits !== '256' && bits !== '384' && bits !== '512') throw new Error(`no ID token hash for alg ${alg}`);
  return `sha${bits}`;
}
