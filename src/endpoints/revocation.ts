/**
 * POST /connect/revocation (RFC 7009). A client revokes its own reference access tokens and
 * refresh tokens (with their whole family). JWT access tokens are self-contained and cannot be
 * revoked: the answer says so with `unsupported_token_type` (§2.2.1).
 */
import { decodeJwt, decodeProtectedHeader } from 'jose';
import type { Store } from '../store/store.js';
import type { Logger } from '../sdk/contracts.js';
import type { ClientAuthenticator } from '../client-authentication/client-authenticator.js';
import { InvalidRequest, UnsupportedTokenType } from '../oauth/errors.js';
import { revokeFamily } from '../oauth/grant-family.js';
import type { FormRequest } from './form-request.js';
import type { EventService } from '../events/event-service.js';

const jwtShape = /^[\w-]+\.[\w-]+\.[\w-]+$/;

/**
 * Whether the token looks like one of our JWT access tokens (RFC 9068 `typ`, our `iss`). Only
 * those get `unsupported_token_type`; anything else is an invalid token, which §2.2 answers 200.
 */
function isOurJwtAccessToken(token: string, issuer: string): boolean {
  if (!jwtShape.test(token)) return false;
  try {
    return decodeProtectedHeader(token).typ === 'at+jwt' && decodeJwt(token).iss === issuer;
  } catch {
    return false;
  }
}

export function createRevocationEndpoint(deps: {
  issuer: string;
  clientAuthenticator: ClientAuthenticator;
  store: Store;
  logger: Logger;
  events?: EventService;
}) {
  return async function revocationEndpoint(request: FormRequest): Promise<undefined> {
    const { client } = await deps.clientAuthenticator.authenticateClient({ ...request, endpoint: 'revocation' });
    const token = request.params.get('token');
    if (token === undefined) throw new InvalidRequest('The token parameter is missing.');
    if (isOurJwtAccessToken(token, deps.issuer)) {
      throw new UnsupportedTokenType('JWT access tokens cannot be revoked; they expire on their own.');
    }
    const record = await deps.store.get(token);
    // Unknown tokens and other clients' tokens get the same 200 (§2.2), so the answer leaks nothing.
    if (!record || record.clientId !== client.clientId) return undefined;
    if (record.type === 'refresh_token' && record.sessionId) {
      const removed = await revokeFamily(deps.store, record.sessionId);
      deps.logger.info({ clientId: client.clientId, removed }, 'refresh token family revoked');
    } else if (record.type === 'reference_token' || record.type === 'refresh_token') {
      await deps.store.remove(token);
    } else {
      return undefined;
    }
    deps.events?.raise({ type: 'token.revoked', clientId: client.clientId, tokenType: record.type }, request.requestId);
    return undefined;
  };
}
