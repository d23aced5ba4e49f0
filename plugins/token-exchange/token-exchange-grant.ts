import {
  allowedSubjectTokenAudiences, audienceOf, certificateBindingProblem, InvalidRequest, InvalidTarget, requireDpopBinding,
  type AccessTokenClaims, type Client, type ClientProblem, type ExtensionGrantValidator, type GrantContext, type JsonValue, type PluginConfig, type PluginDependencies,
} from 'svc/sdk';

const accessTokenType = 'urn:ietf:params:oauth:token-type:access_token';
const grantType = 'urn:ietf:params:oauth:grant-type:token-exchange';

/**
 * A client allowed token exchange with no audience to exchange is a config mistake: say so when
 * the client is defined (config, database, client store), not at every request.
 */
export function exchangeableAudiencesProblem(client: Client): ClientProblem | undefined {
  const fronted: unknown = allowedSubjectTokenAudiences.read(client);
  // A value that is no list is the field's own check's to name (it runs first at start-up).
  if (!Array.isArray(fronted) || fronted.length > 0) return undefined;
  return {
    field: 'allowedSubjectTokenAudiences',
    message: `client "${client.clientId}" may use ${grantType} but lists no API resource whose tokens it may exchange; list the APIs it fronts, e.g. ["api1"]`,
  };
}

function requireExchangeableAudiences(config: PluginConfig): void {
  config.clients.forEach((client, i) => {
    const problem = client.allowedGrantTypes.includes(grantType) ? exchangeableAudiencesProblem(client) : undefined;
    if (problem) throw new Error(`clients[${i}].${problem.field}: ${problem.message}`);
  });
}

/** `allowed` names APIs; a token is addressed to one by its name or its `uri` (RFC 8707 `aud`). */
function addressedTo(claims: AccessTokenClaims, allowed: readonly string[], identifierOf: ReadonlyMap<string, string>): boolean {
  return (typeof claims.aud === 'string' ? [claims.aud] : claims.aud).some((a) => allowed.some((name) => a === name || a === identifierOf.get(name)));
}

/**
 * How the subject signed in (issue 35), carried to the new token: the host refuses a token for
 * an API whose `requiredAcr` the sign-in did not meet, and the API reads it for step-up (RFC 9470).
 */
function signInOf(claims: AccessTokenClaims): { acr?: string; amr?: string[] } {
  return {
    ...(typeof claims.acr === 'string' ? { acr: claims.acr } : {}),
    ...(Array.isArray(claims.amr) ? { amr: claims.amr.filter((m) => typeof m === 'string') } : {}),
  };
}

/**
 * `grant_type=urn:ietf:params:oauth:grant-type:token-exchange` (RFC 8693 §2.1).
 *
 * - Impersonation: only `subject_token`. The new token is the subject's, with no `act`.
 * - Delegation: `subject_token` and `actor_token`. The new token is the subject's, and `act`
 *   (§4.1) names the actor (`sub`, `client_id`), nested on the subject token's own `act`.
 *
 * Only access tokens of this service are accepted as subject and actor tokens; any other
 * token type is `invalid_request` (§2.2.2), and so is a subject or actor token that is not
 * valid (§2.2.2: "If ... the subject_token or actor_token is invalid for any reason, ... the
 * invalid_request error code"). A subject token must be addressed to an API the
 * client may exchange tokens of (`allowedSubjectTokenAudiences`); any other is "unacceptable
 * based on policy", `invalid_request` too (§2.2.2). `audience` and `resource` name API
 * resources and narrow the new token's `aud` to all of them. `resource` is RFC 8707's, checked
 * by the host as at every grant (`request.resources`); `audience` (§2.1, a logical name) names an
 * API by its name or its `uri`. An unknown audience, or one the requested scopes do not cover
 * (and so one the client is not allowed), is `invalid_target`.
 */
export function createTokenExchangeGrant({ tokenValidator, config, logger }: Pick<PluginDependencies, 'tokenValidator' | 'config' | 'logger'>): ExtensionGrantValidator {
  requireExchangeableAudiences(config);
  // An API by its name or its `uri`, built once.
  const apiByTarget = new Map(config.apiResources.flatMap((r) => [[r.name, r], [audienceOf(r), r]] as const));
  const identifierOf = new Map(config.apiResources.map((r) => [r.name, audienceOf(r)]));

  async function validToken(ctx: GrantContext, role: 'subject' | 'actor'): Promise<AccessTokenClaims | undefined> {
    const token = ctx.request.raw.get(`${role}_token`);
    const type = ctx.request.raw.get(`${role}_token_type`);
    if (token === undefined) {
      if (type !== undefined) throw new InvalidRequest(`${role}_token_type without ${role}_token.`);
      return undefined;
    }
    if (type === undefined) throw new InvalidRequest(`The ${role}_token_type parameter is missing.`);
    if (type !== accessTokenType) throw new InvalidRequest(`Unsupported ${role}_token_type; only ${accessTokenType} is accepted.`);
    const validation = await tokenValidator.validateAccessToken(token);
    if (!validation.active) {
      throw new InvalidRequest(`The ${role}_token is invalid.`, { logDetail: `token exchange: ${role}_token rejected: ${validation.reason}` });
    }
    // RFC 9449 §7.1: a DPoP-bound subject token comes with a proof of its key and its hash in
    // `ath`. The one proof can name one token: a bound actor token is refused.
    requireDpopBinding(validation.claims, token, role === 'subject' ? ctx.request.dpop : undefined);
    // RFC 8705 §3: a certificate-bound subject or actor token comes over a connection with that
    // certificate. A token its sender does not present is "unacceptable", invalid_request (§2.2.2).
    const unbound = certificateBindingProblem(validation.claims, ctx.request.certificateThumbprint);
    if (unbound !== undefined) {
      throw new InvalidRequest(`The ${role}_token is bound to a TLS client certificate this request does not present.`, { logDetail: `token exchange: ${role}_token: ${unbound}` });
    }
    return validation.claims;
  }

  return {
    grantType,
    checkClient: exchangeableAudiencesProblem,
    parameters: [
      { name: 'subject_token', maxLength: 16_384, secret: true },
      { name: 'actor_token', maxLength: 16_384, secret: true },
    ],
    async validate(ctx) {
      if (ctx.request.raw.get('subject_token') === undefined) throw new InvalidRequest('The subject_token parameter is missing.');
      const subject = (await validToken(ctx, 'subject'))!;
      const exchangeable = allowedSubjectTokenAudiences.read(ctx.request.client);
      if (!addressedTo(subject, exchangeable, identifierOf)) {
        logger.info({ clientId: ctx.request.client.clientId, aud: subject.aud, allowed: exchangeable }, 'token exchange: subject_token addressed to an audience the client may not exchange');
        throw new InvalidRequest('The subject_token was not issued to an audience this client may exchange.');
      }
      const actor = await validToken(ctx, 'actor');

      const audience = ctx.request.raw.get('audience');
      const targets = [...ctx.request.resources];
      if (audience !== undefined) {
        const api = apiByTarget.get(audience);
        if (!api || !api.scopes.some((s) => ctx.request.requestedScopes.includes(s))) {
          throw new InvalidTarget('The requested audience or resource is unknown or not covered by the requested scopes.');
        }
        if (!targets.includes(audienceOf(api))) targets.push(audienceOf(api));
      }

      const claims: Record<string, JsonValue> = {};
      if (actor !== undefined) {
        const act: Record<string, JsonValue> = { sub: actor.sub, client_id: actor.client_id };
        if (subject.act !== undefined) act.act = subject.act;
        claims.act = act;
      } else if (subject.act !== undefined) {
        claims.act = subject.act;
      }
      ctx.customResponse.issued_token_type = accessTokenType;
      ctx.result = {
        // A token with auth_time represents a user; one without, a client acting for itself.
        subject: typeof subject.auth_time === 'number'
          ? { kind: 'user', id: subject.sub, authTime: subject.auth_time, ...signInOf(subject) }
          : { kind: 'client', id: subject.sub },
        claims,
        ...(targets.length > 0 ? { audience: targets } : {}),
      };
    },
  };
}
