import type { ExtensionGrantValidator, TokenRequestErrorCode } from '../sdk/contracts.js';
import { isOAuthError } from '../oauth/errors.js';
import type { RefreshTokenService } from '../oauth/refresh-tokens.js';
import { parseScope } from '../oauth/scopes.js';

/**
 * RFC 6749 §6: a refresh token buys a new access token and, by rotation, a new refresh token
 * of the same family. A narrower `scope` may be asked for, never a wider one; the family keeps
 * its original scope and audience. The presented token is spent by the host when it stores the
 * new ones (`consumes`), so a failed request leaves it usable.
 */
export function createRefreshTokenGrant({ refreshTokens }: { refreshTokens: RefreshTokenService }): ExtensionGrantValidator {
  return {
    grantType: 'refresh_token',
    async validate(ctx) {
      const handle = ctx.request.raw.get('refresh_token');
      if (handle === undefined) {
        ctx.result = { error: 'invalid_request', description: 'The refresh_token parameter is required.' };
        return;
      }
      const scope = ctx.request.raw.get('scope');
      const requested = scope === undefined ? undefined : parseScope(scope);
      let redeemed;
      try {
        redeemed = await refreshTokens.redeem(handle, ctx.request.client, requested);
      } catch (err) {
        if (isOAuthError(err) && (err.code === 'invalid_grant' || err.code === 'invalid_scope')) {
          ctx.result = { error: err.code as TokenRequestErrorCode, description: err.description };
          return;
        }
        throw err;
      }
      ctx.result = {
        subject: redeemed.subject,
        grantType: 'refresh_token',
        ...(redeemed.authTime === undefined ? {} : { authTime: redeemed.authTime }),
        ...(redeemed.audience === undefined ? {} : { audience: redeemed.audience }),
        scopes: requested ?? redeemed.scopes,
        claims: redeemed.claims,
        sessionId: redeemed.familyId,
        consumes: handle,
      };
    },
    async spent(handle, request) {
      const error = await refreshTokens.refuseSpent(handle, request.client);
      return { error: error.code as TokenRequestErrorCode, description: error.description };
    },
  };
}
