/**
 * RFC 8707 at the token endpoint, after the grant decided: which APIs the access token is for,
 * and which of the grant's scopes it carries. The grant's own `audience` (a code or refresh
 * token narrowed within what it holds, token exchange's `audience`) must hold every requested
 * resource; a grant that sets none gets exactly the requested ones. A token for named APIs
 * carries only their scopes (and the scopes no API owns, such as `openid`). Without `resource`
 * and without a grant audience nothing changes: the token is for every API of its scopes.
 */
import type { Client } from '../config/schema.js';
import type { GrantSuccess, ValidatedTokenRequest } from '../sdk/contracts.js';
import { audienceOf } from '../sdk/resources.js';
import { InvalidRequest, InvalidTarget } from './errors.js';
import { targetDescriptions, type ResourceCatalog } from './resources.js';

/** What the access token is for; the refresh token keeps the grant's whole scope and audience. */
export interface AccessTarget {
  /** Audience identifiers, or names a plugin gave (the issuer maps them to identifiers). */
  readonly audience: readonly string[];
  readonly scopes: readonly string[];
}

export function accessTarget(
  resources: ResourceCatalog,
  request: Pick<ValidatedTokenRequest, 'resources'> & { readonly client: Pick<Client, 'clientId' | 'requireResourceIndicator'> },
  outcome: { readonly success: Pick<GrantSuccess, 'audience'>; readonly scopes: readonly string[] },
): AccessTarget | undefined {
  const requested = request.resources;
  const own = outcome.success.audience;
  if (requested.length === 0) {
    if (own === undefined && request.client.requireResourceIndicator) {
      throw new InvalidRequest('This client must name the API the token is for with the resource parameter.', { logDetail: `client "${request.client.clientId}" requires resource indicators` });
    }
    return undefined;
  }
  if (own !== undefined) {
    const held = new Set(own.map((a) => { const api = resources.find(a); return api ? audienceOf(api) : a; }));
    const outside = requested.find((r) => !held.has(r));
    if (outside !== undefined) throw new InvalidTarget(targetDescriptions.notGranted, { logDetail: `resource ${JSON.stringify(outside)} is outside the audience the grant decided` });
  }
  const audience = own ?? requested;
  return { audience, scopes: resources.narrowScopes(outcome.scopes, audience) };
}
