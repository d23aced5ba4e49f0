/**
 * The standard grants, as a plugin: the same `Plugin` contract and the same registration as a
 * plugin folder's grants. Their factories also close over the host services a stranger's grant
 * cannot reach (the refresh token service, the whole store, the event service).
 */
import type { Plugin } from '../sdk/index.js';
import type { RefreshTokenService } from '../oauth/refresh-tokens.js';
import type { EventService } from '../events/event-service.js';
import type { Store } from '../store/store.js';
import type { ResolvedConfig } from '../config/schema.js';
import type { Counters } from '../throttling/counters.js';
import type { ResourceCatalog } from '../oauth/resources.js';
import { createAuthorizationCodeGrant } from './authorization-code.js';
import { createClientCredentialsGrant } from './client-credentials.js';
import { createDeviceCodeGrant } from './device-code.js';
import { createPasswordGrant } from './password.js';
import { createRefreshTokenGrant } from './refresh-token.js';

export interface StandardGrantServices {
  readonly config: Pick<ResolvedConfig, 'passwordThrottle'>;
  readonly refreshTokens: RefreshTokenService;
  readonly events: EventService;
  readonly store: Store;
  /** Where the password grant's throttle counts: the app's one 'password' back-off. */
  readonly counters: Counters;
  /** The APIs `resource` names (RFC 8707): codes, device codes and refresh tokens narrow within theirs. */
  readonly resources?: ResourceCatalog;
}

export function standardGrants({ config, refreshTokens, events, store, counters, resources }: StandardGrantServices): Plugin {
  return {
    name: 'standard-grants',
    extensionGrants: [
      createClientCredentialsGrant,
      (deps) => createPasswordGrant({ ...deps, events, counters, passwordThrottle: config.passwordThrottle }),
      () => createRefreshTokenGrant({ refreshTokens, ...(resources ? { resources } : {}) }),
      ({ clock, logger }) => createDeviceCodeGrant({ store, clock, logger, ...(resources ? { resources } : {}) }),
      ({ clock, logger }) => createAuthorizationCodeGrant({ store, clock, logger, events, ...(resources ? { resources } : {}) }),
    ],
  };
}
