/**
 * The OpenAPI document without a running service, for `npm run admin-openapi` (which writes
 * docs/admin-api.openapi.json) and its freshness test: the operations declared with no services
 * behind them, as declaring an operation uses none (only its handler would). Client bodies show
 * the fields the package's own plugins declare (`packageClientFields`); a running service's
 * `/openapi.json` shows those of the plugins it loaded, a deployment's own included.
 */
import type { DescribedClientField } from '../config/plugin-client-field-schemas.js';
import { adminOperations, type AdminApiDeps } from './admin-api.js';
import { openApiDocument } from './openapi.js';

const none = undefined as never;

export function adminApiDocument(version: string, clientFields: readonly DescribedClientField[] = []): Record<string, unknown> {
  const deps: AdminApiDeps = {
    config: { clients: [], apiResources: [], limits: { bodyBytes: 0 }, signing: { propagationTime: 0 }, registration: {} } as never,
    store: none, clock: none, logger: none, events: none, tokenValidator: none, dpop: none, keyRing: none, protector: none,
    clientAdmin: none, userAdmin: none, refreshClients: none, version, clientFields,
  };
  return openApiDocument(adminOperations(deps), version);
}
