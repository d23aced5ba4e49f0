/**
 * The admin API (issue 39) as a Koa app of its own, for its own listener (`listener.ts`): every
 * operation from `routes/`, the OpenAPI document generated from them at `/openapi.json`, each
 * call audited, every error a problem (RFC 9457); callers authenticated by an access token, or by
 * a client certificate when `admin.tls` is set. Built from plain services, the same ones the
 * CLI runs: `createClientAdmin`, `createUserAdmin`, the store and the key ring.
 */
import Koa from 'koa';
import type { ResolvedConfig } from '../config/schema.js';
import type { ClientAdmin } from '../clients/client-admin.js';
import type { EventService } from '../events/event-service.js';
import type { KeyRing } from '../oauth/keys/key-ring.js';
import type { KeyProtector } from '../oauth/keys/key-protection.js';
import type { Clock, Logger, TokenValidator } from '../sdk/contracts.js';
import type { DpopProofValidator } from '../sender-binding/dpop-proof-validator.js';
import type { Store } from '../store/store.js';
import type { DescribedClientField } from '../config/plugin-client-field-schemas.js';
import type { UserAdmin } from '../users/user-admin.js';
import { requestId } from '../http/request-id.js';
import { createAdminRouter } from './admin-router.js';
import { auditRequests } from './audit.js';
import { createAdminAuthentication } from './authentication.js';
import { createCertificateAuthentication } from './certificate-authentication.js';
import { oneAtATime } from './one-at-a-time.js';
import type { AdminOperation } from './operation.js';
import { openApiDocument } from './openapi.js';
import { problemResponses } from './problem.js';
import { grantRoutes } from './routes/grants.js';
import { registrationPolicyRoutes } from './routes/registration-policy.js';
import { apiResourceRoutes, clientRoutes } from './routes/registered-records.js';
import { signingKeyRoutes } from './routes/signing-keys.js';
import { userRoutes } from './routes/users.js';

export interface AdminApiDeps {
  config: Pick<ResolvedConfig, 'clients' | 'apiResources' | 'limits' | 'signing' | 'registration' | 'admin'>;
  store: Store;
  clock: Clock;
  logger: Logger;
  events: EventService;
  tokenValidator: TokenValidator;
  dpop: DpopProofValidator;
  keyRing: KeyRing;
  protector: KeyProtector;
  clientAdmin: ClientAdmin;
  userAdmin: UserAdmin;
  /** The client fields the loaded plugins declare: client bodies take them, the document shows them. */
  clientFields?: readonly DescribedClientField[];
  /** Reloads this node's clients after a change. */
  refreshClients(): Promise<void>;
  version: string;
}

/** Every operation, in the document's order. */
export function adminOperations(deps: AdminApiDeps): AdminOperation[] {
  const { config, store, clock } = deps;
  const serialize = oneAtATime();
  const inConfig = (kind: 'client' | 'apiResource', id: string): boolean =>
    kind === 'client' ? config.clients.some((c) => c.clientId === id) : config.apiResources.some((r) => r.name === id);
  const records = { admin: deps.clientAdmin, inConfig, changed: deps.refreshClients, serialize };
  return [
    ...clientRoutes(records, deps.clientFields),
    ...apiResourceRoutes(records),
    ...userRoutes({ users: deps.userAdmin, serialize }),
    ...signingKeyRoutes({ store, keyRing: deps.keyRing, protector: deps.protector, clock, logger: deps.logger, propagationTime: config.signing.propagationTime, serialize }),
    ...grantRoutes({ store, clock }),
    ...registrationPolicyRoutes({ config }),
  ];
}

export interface AdminApi {
  readonly koa: Koa;
  /** Called once the listener is bound, with its URL (what DPoP proofs name as `htu`). */
  listening(url: string): void;
}

export function createAdminApi(deps: AdminApiDeps): AdminApi {
  let baseUrl = '';
  const operations = adminOperations(deps);
  const documentJson = JSON.stringify(openApiDocument(operations, deps.version));
  const router = createAdminRouter(operations, {
    // Behind mutual TLS the certificate is the credential; otherwise an access token of this service.
    authenticate: deps.config.admin?.tls
      ? createCertificateAuthentication(deps.config.admin.tls.clients)
      : createAdminAuthentication({ tokenValidator: deps.tokenValidator, dpop: deps.dpop, baseUrl: () => baseUrl }),
    limits: deps.config.limits,
    // The document says what the API is, nothing about the service's data: open to every caller that reaches the listener.
    open: (r) => r.get('/openapi.json', (ctx) => {
      ctx.set('Cache-Control', 'no-cache');
      ctx.type = 'application/json';
      ctx.body = documentJson;
    }),
  });
  const koa = new Koa({ proxy: false });
  koa.silent = true;
  koa.use(requestId);
  koa.use(auditRequests(deps.events));
  koa.use(problemResponses(deps.logger));
  koa.use(router.routes());
  koa.use(router.allowedMethods());
  return {
    koa,
    listening(url) {
      baseUrl = url;
    },
  };
}
