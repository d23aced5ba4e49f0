/**
 * RFC 7591 §2 `token_endpoint_auth_method`: a client that pinned its methods
 * (`tokenEndpointAuthMethods`) cannot be downgraded to another, `none` included.
 */
import type { Client } from '../config/schema.js';
import type { CredentialSource } from '../sdk/contracts.js';
import { denied } from './refusal.js';

export function requirePinnedMethod(client: Client, method: string, source: CredentialSource): void {
  const allowed = client.tokenEndpointAuthMethods;
  if (allowed !== undefined && !allowed.includes(method)) {
    throw denied(source, `${method} for "${client.clientId}": ${method} is not in the client's tokenEndpointAuthMethods (${allowed.join(', ')})`);
  }
}
