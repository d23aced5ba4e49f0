import type { ExtensionGrantValidator, PluginDependencies } from '../sdk/contracts.js';
import { offlineAccess } from '../oauth/scopes.js';

/**
 * RFC 6749 §4.4: the client acts for itself. The subject is the client's own id (RFC 9068 §2.2)
 * and the token carries no `auth_time`, so it can always be told from a user's token.
 */
export function createClientCredentialsGrant({ config }: Pick<PluginDependencies, 'config'>): ExtensionGrantValidator {
  const identityScopes = new Set(config.identityResources.map((r) => r.name));
  return {
    grantType: 'client_credentials',
    validate(ctx) {
      const userOnly = ctx.request.requestedScopes.find((s) => s === offlineAccess || identityScopes.has(s));
      if (userOnly) {
        ctx.result = { error: 'invalid_scope', description: 'Identity scopes and offline_access need a user; client_credentials has none.' };
        return;
      }
      ctx.result = { subject: ctx.request.client.clientId, grantType: 'client_credentials' };
    },
  };
}
