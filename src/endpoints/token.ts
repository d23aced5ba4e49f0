/**
 * POST /connect/token (RFC 6749 §3.2): check the grant type, authenticate the client, check it
 * may use the grant and the scopes, run the grant, issue the tokens.
 */
import type { ExtensionGrantValidator, Logger } from '../sdk/contracts.js';
import type { ClientAuthenticator } from '../oauth/client-authenticator.js';
import { InvalidRequest, UnauthorizedClient, UnsupportedGrantType } from '../oauth/errors.js';
import { runGrant } from '../oauth/grant-runner.js';
import { resolveRequestedScopes, type ScopeCatalog } from '../oauth/scopes.js';
import type { TokenIssuer, TokenResponse } from '../oauth/token-issuer.js';
import type { FormRequest } from './form-request.js';

export interface TokenEndpointDeps {
  clientAuthenticator: ClientAuthenticator;
  grants: ReadonlyMap<string, ExtensionGrantValidator>;
  tokenIssuer: TokenIssuer;
  scopeCatalog: ScopeCatalog;
  logger: Logger;
}

/** Credentials never travel further than client authentication. */
const credentialParams = ['client_secret', 'client_assertion', 'client_assertion_type'];

export function createTokenEndpoint(deps: TokenEndpointDeps) {
  function checkGrantType(request: FormRequest): ExtensionGrantValidator {
    const grantType = request.params.get('grant_type');
    if (grantType === undefined) throw new InvalidRequest('The grant_type parameter is missing.');
    const grant = deps.grants.get(grantType);
    if (!grant) throw new UnsupportedGrantType();
    return grant;
  }

  return async function tokenEndpoint(request: FormRequest): Promise<TokenResponse> {
    const grant = checkGrantType(request);
    const { client } = await deps.clientAuthenticator.authenticateClient({ ...request, endpoint: 'token' });
    if (!client.allowedGrantTypes.includes(grant.grantType)) {
      throw new UnauthorizedClient(undefined, { logDetail: `client "${client.clientId}" may not use ${grant.grantType}` });
    }
    const requestedScopes = resolveRequestedScopes(client, request.params.get('scope'), deps.scopeCatalog);
    const raw = new Map(request.params);
    for (const name of credentialParams) raw.delete(name);
    const outcome = await runGrant(
      grant,
      { client, grantType: grant.grantType, requestedScopes, scopeRequested: request.params.has('scope'), raw },
      deps.logger,
    );
    return deps.tokenIssuer.issue({ client, grant: outcome.success, scopes: outcome.scopes, customResponse: outcome.customResponse });
  };
}
