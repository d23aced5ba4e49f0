/**
 * The composition root: the one awilix container of the service, strict mode on. Every core
 * service is a factory over a small deps type; plugins resolve what they need by name from
 * the same container (see `PluginDependencies`).
 */
import { asFunction, asValue, createContainer, InjectionMode, type AwilixContainer } from 'awilix';
import type { ResolvedConfig } from '../config/schema.js';
import type { Clock, Logger } from '../sdk/contracts.js';
import type { Store } from '../store/store.js';
import type { KeyRing } from '../oauth/keys/key-ring.js';
import type { EventService } from '../events/event-service.js';
import type { Counters } from '../counters/counters.js';
import { endpointUrls } from '../endpoints/urls.js';
import { createTokenValidator } from '../oauth/token-validator.js';
import { createConfigUserValidator } from '../oauth/config-user-validator.js';
import { createRefreshTokenService } from '../oauth/refresh-tokens.js';
import { createIdTokenIssuer } from '../oauth/id-token-issuer.js';
import { createTokenIssuer } from '../oauth/token-issuer.js';

export interface CoreParts {
  config: ResolvedConfig;
  logger: Logger;
  clock: Clock;
  store: Store;
  keyRing: KeyRing;
  events: EventService;
  /** Where the guessing counters live (core-only: the password grant's throttle). */
  counters: Counters;
}

export function createServiceContainer(parts: CoreParts): AwilixContainer {
  const container = createContainer({ injectionMode: InjectionMode.PROXY, strict: true });
  container.register({
    config: asValue(parts.config),
    urls: asValue(endpointUrls(parts.config.issuer)),
    logger: asValue(parts.logger),
    clock: asValue(parts.clock),
    store: asValue(parts.store),
    keyRing: asValue(parts.keyRing),
    events: asValue(parts.events),
    counters: asValue(parts.counters),
    pluginOptions: asValue(Object.freeze({})),
    tokenValidator: asFunction(createTokenValidator).singleton(),
    resourceOwnerValidator: asFunction(createConfigUserValidator).singleton(),
    refreshTokens: asFunction(createRefreshTokenService).singleton(),
    idTokens: asFunction(createIdTokenIssuer).singleton(),
    tokenIssuer: asFunction(createTokenIssuer).singleton(),
  });
  return container;
}

export const systemClock: Clock = { now: () => Date.now() };
