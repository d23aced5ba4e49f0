import type { ExtensionGrantValidator } from '../sdk/contracts.js';
import { isOAuthError } from '../oauth/errors.js';
import type { RefreshTokenService } from '../oauth/refresh-tokens.js';
import { parseScope } from '../oauth/scopes.js';

/**
 * RFC 6749 §6: a refresh token buys a new access token and, by rotation, a new refresh token
 * of the same family. A narrower `scope` may be asked for, never a wider one.
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
      let redeemed;
      try {
        redeemed = await refreshTokens.redeem(handle, ctx.request.client);
      } catch (err) {
        if (isOAuthError(err) && err.code === 'invalid_grant') {
          ctx.result = { error: 'invalid_grant', description: err.description };
          return;
        }
        throw err;
      }
      const scope = ctx.request.raw.get('scope');
      const scopes = scope === undefined ? redeemed.scopes : parseScope(scope);
      const wider = scopes.find((s) => !redeemed.scopes.includes(s));
      if (wider) {
        ctx.result = { error: 'invalid_scope', description: `The scope "${wider}" was not granted originally.` };
        return;
      }
      ctx.result = {
        subject: redeemed.subject,
        grantType: 'refresh_token',
        ...(redeemed.authTime === undefined ? {} : { authTime: redeemed.authTime }),
        scopes,
        claims: redeemed.claims,
        sessionId: redeemed.familyId,
      };
    },
  };
}
