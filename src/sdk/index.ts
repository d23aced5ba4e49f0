/**
 * The one module plugin authors and `svc.config.ts` import: `import { definePlugin } from 'svc/sdk'`.
 */
export type * from './contracts.js';
export type { ServiceEvent, RaisedEvent, EventSink, ServiceEventType } from '../events/service-event.js';
export { isGrantError } from './contracts.js';
export type {
  UserConfig,
  ClientConfig,
  SecretConfig,
  ApiScopeConfig,
  ApiResourceConfig,
  IdentityResourceConfig,
  ResolvedConfig,
  Client,
  ApiResource,
  Secret,
  User,
} from '../config/schema.js';
export * from '../oauth/errors.js';
export { DuplicateKeyError, StoreUnavailableError } from '../store/store.js';
export { definePlugin } from './define-plugin.js';
export { defineConfig } from '../config/define-config.js';
export { hashSecret } from '../oauth/secret-hash.js';
export { isNumericDate, MAX_NUMERIC_DATE } from './numeric-date.js';
