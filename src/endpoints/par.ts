/**
 * POST /connect/par (RFC 9126 §2): the client authenticates as at the token endpoint and pushes
 * its authorization parameters, which are validated here as the authorization endpoint would
 * (an unregistered redirect URI is a 400 with no `request_uri`); the answer is 201 with a
 * one-time `request_uri` good for 60 seconds.
 *
 * A DPoP proof may come along (RFC 9449 §10.1): it is checked as at the token endpoint, and the
 * code is then bound to its key as if `dpop_jkt` had named it; a `dpop_jkt` sent as well must
 * name that same key.
 */
import type { ClientAuthenticator } from '../client-authentication/client-authenticator.js';
import { InvalidRequest, OAuthError } from '../oauth/errors.js';
import { RedirectableError, UntrustedRequestError, type RequestValidator } from '../authorize/authorization-request.js';
import type { PushedRequests } from '../authorize/pushed-requests.js';
import type { DpopProofValidator } from '../sender-binding/dpop-proof-validator.js';
import type { FormRequest } from './form-request.js';
import { checkFapi2DpopAlgorithm } from '../config/fapi2-profile.js';

export function createParEndpoint(deps: {
  clientAuthenticator: ClientAuthenticator;
  validator: RequestValidator;
  pushed: PushedRequests;
  /** Parameters declared `credential` by the loaded contributions: they serve client authentication only. */
  credentialParameters: ReadonlySet<string>;
  dpop: DpopProofValidator;
  /** The endpoint's public URL, the `htu` of its DPoP proofs. */
  parUrl: string;
}) {
  return async function pushedAuthorizationRequest(request: FormRequest): Promise<{ request_uri: string; expires_in: number }> {
    // Before client authentication, as at the token endpoint: a bad proof is refused first. Its
    // `jti` is recorded only once the client authenticated and the request is valid (`spend`).
    const verified = await deps.dpop.verify({ headers: request.dpop, method: 'POST', url: deps.parUrl }, 'token');
    const proof = verified?.summary;
    const { client } = await deps.clientAuthenticator.authenticateClient({ ...request, endpoint: 'pushed_authorization_request' });
    checkFapi2DpopAlgorithm(client, proof?.alg);
    const params = new Map(request.params);
    for (const name of deps.credentialParameters) params.delete(name);
    // RFC 9126 §2.1: client_id may be left out of the body when another method names the client.
    if (!params.has('client_id')) params.set('client_id', client.clientId);
    let validated;
    try {
      // A signed request object (RFC 9101, RFC 9126 §3) in `request`: its parameters alone count.
      validated = await deps.validator.read(params, { pushed: true, authenticatedClient: client });
    } catch (err) {
      if (err instanceof UntrustedRequestError) throw new InvalidRequest(err.text, { logDetail: err.logDetail });
      if (err instanceof RedirectableError) throw new OAuthError(err.error.code, err.error.description, { logDetail: err.error.logDetail });
      throw err;
    }
    if (proof !== undefined) {
      if (validated.dpopJkt !== undefined && validated.dpopJkt !== proof.jkt) {
        throw new InvalidRequest('The dpop_jkt parameter does not name the key of the DPoP proof.', { logDetail: 'dpop_jkt differs from the DPoP proof key thumbprint' });
      }
      validated = { ...validated, dpopJkt: proof.jkt };
    }
    // RFC 9449 §11.1: the replay check, before the request is stored.
    await verified?.spend();
    const { requestUri, expiresIn } = await deps.pushed.push(validated);
    return { request_uri: requestUri, expires_in: expiresIn };
  };
}
