/**
 * The standard grants, registered through the same call as a plugin folder's grants.
 */
import type { ExtensionGrantValidator, Plugin, PluginDependencies } from '../sdk/contracts.js';
import type { RefreshTokenService } from '../oauth/refresh-tokens.js';
import type { EventService } from '../events/event-service.js';
import type { Counters } from '../counters/counters.js';
import { createAuthorizationCodeGrant } from './authorization-code.js';
import { createClientCredentialsGrant } from './client-credentials.js';
import { createDeviceCodeGrant } from './device-code.js';
import { createPasswordGrant } from './password.js';
import { createRefreshTokenGrant } from './refresh-token.js';

/** Core grants may also ask for core-only services, which the same container holds. */
type CoreGrantFactory = (deps: PluginDependencies & { refreshTokens: RefreshTokenService; events: EventService; counters: Counters }) => ExtensionGrantValidator;

const factories: CoreGrantFactory[] = [createClientCredentialsGrant, createPasswordGrant, createRefreshTokenGrant, createDeviceCodeGrant, createAuthorizationCodeGrant];

export const standardGrants: Plugin = {
  name: 'standard-grants',
  extensionGrants: factories as unknown as Plugin['extensionGrants'],
};
