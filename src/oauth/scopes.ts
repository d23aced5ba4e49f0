/** Scope rules shared by every endpoint that takes a `scope` parameter (RFC 6749 §3.3). */
import type { Client } from '../config/schema.js';
import { InvalidScope } from './errors.js';

export const offlineAccess = 'offline_access';
const scopeToken = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

export interface ScopeCatalog {
  readonly apiScopes: ReadonlySet<string>;
  readonly identityScopes: ReadonlySet<string>;
}

/** Splits a `scope` parameter; a malformed token is `invalid_scope`. Duplicates collapse. */
export function parseScope(scope: string): string[] {
  const tokens = scope.split(' ').filter((s) => s !== '');
  for (const token of tokens) {
    if (!scopeToken.test(token)) throw new InvalidScope('The scope parameter is malformed.');
  }
  return [...new Set(tokens)];
}

/**
 * The scopes a request may get. Requested scopes must all be allowed to the client (and
 * `offline_access` only with `allowOfflineAccess`); with no `scope`, the client's allowed API
 * scopes (identity scopes and `offline_access` are only granted when asked for).
 */
export function resolveRequestedScopes(client: Client, scope: string | undefined, catalog: ScopeCatalog): string[] {
  if (scope === undefined) return client.allowedScopes.filter((s) => catalog.apiScopes.has(s));
  const requested = parseScope(scope);
  if (requested.length === 0) throw new InvalidScope('The scope parameter is empty.');
  for (const s of requested) {
    const allowed = s === offlineAccess ? client.allowOfflineAccess : client.allowedScopes.includes(s);
    // The description never names the scope (RFC 6749 §5.2's character set; no echo of input); the log does.
    if (!allowed) throw new InvalidScope('The client is not allowed a requested scope.', { logDetail: `scope ${JSON.stringify(s)} is not allowed to client ${JSON.stringify(client.clientId)}` });
  }
  return requested;
}
