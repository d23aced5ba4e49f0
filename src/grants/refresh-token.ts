import { InvalidGrant, InvalidRequest, type ExtensionGrantValidator } from '../sdk/index.js';
import type { RefreshTokenService } from '../oauth/refresh-tokens.js';
import { parseScope } from '../oauth/scopes.js';
import { noResources, type ResourceCatalog } from '../oauth/resources.js';
import { rotatesRefreshTokens } from '../config/fapi2-profile.js';

/**
 * RFC 6749 §6: a refresh token buys a new access token and, by rotation, a new refresh token
 * of the same family. A narrower `scope` may be asked for, never a wider one, and with `resource`
 * (RFC 8707 §2.2) a token for some of the family's APIs, never another; the family keeps its
 * original scope and audience. The presented token is spent by the host when it stores the
 * new ones (`consumes`), so a failed request leaves it usable. The service's `invalid_grant` and
 * `invalid_scope` errors are the grant's answers as they are.
 *
 * A client under the FAPI 2.0 profile keeps its refresh token (no rotation, `fapi2-profile.ts`):
 * nothing is spent, so a client that lost an answer retries with the same token.
 */
export function createRefreshTokenGrant({ refreshTokens, resources = noResources }: { refreshTokens: RefreshTokenService; resources?: ResourceCatalog }): ExtensionGrantValidator {
  return {
    grantType: 'refresh_token',
    parameters: [{ name: 'refresh_token', maxLength: 100, secret: true }],
    async validate(ctx) {
      const handle = ctx.request.raw.get('refresh_token');
      if (handle === undefined) throw new InvalidRequest('The refresh_token parameter is required.');
      const scope = ctx.request.raw.get('scope');
      const requested = scope === undefined ? undefined : parseScope(scope);
      const redeemed = await refreshTokens.redeem(handle, ctx.request.client, requested);
      // RFC 9449 §5: a bound refresh token needs a proof of the same key.
      if (redeemed.jkt !== undefined && redeemed.jkt !== ctx.request.dpop?.jkt) {
        throw new InvalidGrant('The refresh token is bound to a DPoP key this request does not prove.', {
          logDetail: ctx.request.dpop === undefined ? 'DPoP-bound refresh token without a DPoP proof' : 'DPoP-bound refresh token with a proof of another key',
        });
      }
      // RFC 8705 §4: a public client's certificate-bound refresh token needs the same certificate.
      if (redeemed.x5t !== undefined && redeemed.x5t !== ctx.request.certificateThumbprint) {
        throw new InvalidGrant('The refresh token is bound to a TLS client certificate this request does not present.', {
          logDetail: ctx.request.certificateThumbprint === undefined ? 'certificate-bound refresh token without a client certificate' : 'certificate-bound refresh token with another client certificate',
        });
      }
      ctx.result = refreshTokens.continueFamily(redeemed, {
        subject: redeemed.subject,
        // RFC 8707 §2.2: each refresh may ask for a token for some of the family's APIs, never others.
        ...(redeemed.audience === undefined ? {} : { audience: resources.within(redeemed.audience, ctx.request.resources)! }),
        scopes: requested ?? redeemed.scopes,
        claims: redeemed.claims,
        ...(rotatesRefreshTokens(ctx.request.client) ? { consumes: handle } : {}),
      });
    },
    spent: (handle, request) => refreshTokens.refuseSpent(handle, request.client),
  };
}
