import { InvalidScope, type ExtensionGrantValidator, type PluginDependencies } from '../sdk/index.js';
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
      if (userOnly) throw new InvalidScope('Identity scopes and offline_access need a user; client_credentials has none.');
      ctx.result = { subject: { kind: 'client', id: ctx.request.client.clientId } };
    },
  };
}
