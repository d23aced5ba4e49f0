import {
  allowedSubjectTokenAudiences, audienceOf, InvalidGrant, requireSenderBinding, type Client, type ClientProblem, type ExtensionGrantValidator, type JsonValue, type PluginConfig, type PluginDependencies,
} from 'svc/sdk';

/**
 * A client allowed this grant must name the APIs it fronts, or it could exchange nothing: say
 * so when the client is defined (config, database, client store) rather than refusing every request.
 */
export function frontedApisProblem(client: Client): ClientProblem | undefined {
  const fronted: unknown = allowedSubjectTokenAudiences.read(client);
  // A value that is no list is the field's own check's to name (it runs first at start-up).
  if (!Array.isArray(fronted) || fronted.length > 0) return undefined;
  return {
    field: 'allowedSubjectTokenAudiences',
    message: `client "${client.clientId}" may use the delegation grant but lists no API resource whose tokens it may exchange; list the APIs it fronts, e.g. ["api1"]`,
  };
}

function requireFrontedApis(config: PluginConfig): void {
  config.clients.forEach((client, i) => {
    const problem = client.allowedGrantTypes.includes('delegation') ? frontedApisProblem(client) : undefined;
    if (problem) throw new Error(`clients[${i}].${problem.field}: ${problem.message}`);
  });
}

/**
 * `grant_type=delegation` with the user's access token in `token`. The new token keeps the
 * user's `sub` and `auth_time`, is issued to the calling client, and records in `act`
 * (RFC 8693 §4.1) the client the user's token was issued to, nested on any earlier `act`,
 * so the back end sees the whole chain.
 *
 * Only a token addressed to an API the client fronts (`allowedSubjectTokenAudiences`) is
 * accepted: an API swaps the token its caller sent *it*. Without this, a client holding any
 * user token (leaked, or sent to some other API) could turn it into a token of its own.
 */
export function createDelegationGrant({ tokenValidator, logger, config }: Pick<PluginDependencies, 'tokenValidator' | 'logger' | 'config'>): ExtensionGrantValidator {
  requireFrontedApis(config);
  // A fronted API (by name) is in a token's `aud` by its name or its `uri` (RFC 8707).
  const identifierOf = new Map(config.apiResources.map((r) => [r.name, audienceOf(r)]));
  return {
    grantType: 'delegation',
    parameters: [{ name: 'token', maxLength: 16_384, secret: true }],
    checkClient: frontedApisProblem,
    async validate(ctx) {
      const token = ctx.request.raw.get('token');
      if (token === undefined) {
        throw new InvalidGrant('The token parameter is missing.');
      }
      const validation = await tokenValidator.validateAccessToken(token);
      if (!validation.active) {
        logger.info({ clientId: ctx.request.client.clientId, reason: validation.reason }, 'delegation: token rejected');
        throw new InvalidGrant('The token is invalid.');
      }
      // A bound token comes from its sender: a DPoP proof of its key with its hash in `ath`
      // (RFC 9449 §7.1), the client certificate it is bound to (RFC 8705 §3, else invalid_grant).
      requireSenderBinding(validation.claims, token, ctx.request);
      const { sub, auth_time: authTime, client_id: clientId, act, aud, acr, amr } = validation.claims;
      // A client_credentials token's sub is the client itself and it has no auth_time: no user to act for.
      if (typeof authTime !== 'number') {
        throw new InvalidGrant('The token does not represent a user.');
      }
      const fronted = allowedSubjectTokenAudiences.read(ctx.request.client);
      if (!(typeof aud === 'string' ? [aud] : aud).some((a) => fronted.some((name) => a === name || a === identifierOf.get(name)))) {
        logger.info({ clientId: ctx.request.client.clientId, aud, allowed: fronted }, 'delegation: token addressed to an API the client does not front');
        throw new InvalidGrant('The token was not issued to an API this client acts for.');
      }
      const actor: Record<string, JsonValue> = { client_id: clientId };
      if (act !== undefined) actor.act = act;
      // Issue 35: the user's sign-in stays with the new token; the host refuses a token for an API
      // whose `requiredAcr` it does not meet (invalid_grant), and the back end can ask for step-up (RFC 9470).
      const signIn = { ...(typeof acr === 'string' ? { acr } : {}), ...(Array.isArray(amr) ? { amr: amr.filter((m) => typeof m === 'string') } : {}) };
      ctx.result = { subject: { kind: 'user', id: sub, authTime, ...signIn }, claims: { act: actor } };
    },
  };
}
