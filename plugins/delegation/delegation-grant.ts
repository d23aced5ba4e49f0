import type { ExtensionGrantValidator, JsonValue, PluginDependencies } from 'svc/sdk';

/**
 * `grant_type=delegation` with the user's access token in `token`. The new token keeps the
 * user's `sub` and `auth_time`, is issued to the calling client, and records in `act`
 * (RFC 8693 §4.1) the client the user's token was issued to, nested on any earlier `act`,
 * so the back end sees the whole chain.
 */
export function createDelegationGrant({ tokenValidator, logger }: Pick<PluginDependencies, 'tokenValidator' | 'logger'>): ExtensionGrantValidator {
  return {
    grantType: 'delegation',
    async validate(ctx) {
      const token = ctx.request.raw.get('token');
      if (token === undefined) {
        ctx.result = { error: 'invalid_grant', description: 'The token parameter is missing.' };
        return;
      }
      const validation = await tokenValidator.validateAccessToken(token);
      if (!validation.active) {
        logger.info({ clientId: ctx.request.client.clientId, reason: validation.reason }, 'delegation: token rejected');
        ctx.result = { error: 'invalid_grant', description: 'The token is invalid.' };
        return;
      }
      const { sub, auth_time: authTime, client_id: clientId, act } = validation.claims;
      // A client_credentials token's sub is the client itself and it has no auth_time: no user to act for.
      if (typeof authTime !== 'number') {
        ctx.result = { error: 'invalid_grant', description: 'The token does not represent a user.' };
        return;
      }
      const actor: Record<string, JsonValue> = { client_id: clientId };
      if (act !== undefined) actor.act = act;
      ctx.result = { subject: sub, grantType: 'delegation', authTime, claims: { act: actor } };
    },
  };
}
