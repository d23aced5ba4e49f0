/**
 * POST /connect/par (RFC 9126 §2): the client authenticates as at the token endpoint and pushes
 * its authorization parameters, which are validated here as the authorization endpoint would
 * (an unregistered redirect URI is a 400 with no `request_uri`); the answer is 201 with a
 * one-time `request_uri` good for 60 seconds.
 */
import type { ClientAuthenticator } from '../oauth/client-authenticator.js';
import { InvalidRequest, OAuthError } from '../oauth/errors.js';
import { RedirectableError, UntrustedRequestError, type RequestValidator } from '../authorize/authorization-request.js';
import type { PushedRequests } from '../authorize/pushed-requests.js';
import type { FormRequest } from './form-request.js';

export function createParEndpoint(deps: {
  clientAuthenticator: ClientAuthenticator;
  validator: RequestValidator;
  pushed: PushedRequests;
  /** Parameters declared `credential` by the loaded contributions: they serve client authentication only. */
  credentialParameters: ReadonlySet<string>;
}) {
  return async function pushedAuthorizationRequest(request: FormRequest): Promise<{ request_uri: string; expires_in: number }> {
    const { client } = await deps.clientAuthenticator.authenticateClient({ ...request, endpoint: 'pushed_authorization_request' });
    const params = new Map(request.params);
    for (const name of deps.credentialParameters) params.delete(name);
    // RFC 9126 §2.1: client_id may be left out of the body when another method names the client.
    if (!params.has('client_id')) params.set('client_id', client.clientId);
    let validated;
    try {
      validated = deps.validator.validate(params, { pushed: true, authenticatedClient: client });
    } catch (err) {
      if (err instanceof UntrustedRequestError) throw new InvalidRequest(err.text, { logDetail: err.logDetail });
      if (err instanceof RedirectableError) throw new OAuthError(err.error.code, err.error.description, { logDetail: err.error.logDetail });
      throw err;
    }
    const { requestUri, expiresIn } = await deps.pushed.push(validated);
    return { request_uri: requestUri, expires_in: expiresIn };
  };
}
