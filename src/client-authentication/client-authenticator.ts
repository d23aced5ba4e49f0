/**
 * Authenticates the caller of an endpoint, in three steps with a file each: parse (the secret
 * parsers find credentials), validate (the secret validators judge them against the holder's
 * unexpired secrets), throttle and observe (the auth throttle, events, the holder's last use,
 * a span). A new authentication method is a parser and a validator in the plugin lists, not a
 * branch here. Every failure looks the same to the caller (`invalid_client`); the log says which
 * check failed. Everything below is built once at start-up; a request allocates its `Attempt`.
 */
import type { ApiResource, Client } from '../config/schema.js';
import type { ClientDirectory, Lookup } from '../clients/client-directory.js';
import type { EventService } from '../events/event-service.js';
import type { AuthThrottle } from '../throttling/auth-throttle.js';
import type { Clock, SecretParser, SecretValidator } from '../sdk/contracts.js';
import { tracingOff, type Tracing } from '../tracing/tracing.js';
import { createApiResourceAuthentication } from './authenticate-api-resource.js';
import { createClientAuthentication } from './authenticate-client.js';
import { apiAuthenticationEvents, clientAuthenticationEvents } from './authentication-events.js';
import { createAttemptObserver } from './observe-attempt.js';
import { createCredentialParser } from './parse-credentials.js';
import { indexSecretValidators } from './secret-validator-index.js';
import { createAttemptThrottle } from './throttle-attempt.js';
import { traced } from './trace-authentication.js';
import type { ClientAuthenticator } from './types.js';
import { createSecretValidation } from './validate-secret.js';

export type { AuthenticatedApi, AuthenticatedClient, AuthenticationSource, ClientAuthenticator } from './types.js';

export interface ClientAuthenticatorDeps {
  clients: Lookup<Client>;
  apiResources: Lookup<ApiResource>;
  /** Disabled entries and last use, when clients come from stores (`src/clients`). */
  directory?: (Pick<ClientDirectory, 'isDisabled' | 'used'> & Partial<Pick<ClientDirectory, 'prepare'>>) | undefined;
  secretParsers: readonly SecretParser[];
  secretValidators: readonly SecretValidator[];
  clock: Clock;
  throttle?: AuthThrottle | undefined;
  events?: EventService | undefined;
  /** A span around each authentication; default none. */
  tracing?: Tracing | undefined;
}

export function createClientAuthenticator(deps: ClientAuthenticatorDeps): ClientAuthenticator {
  const validators = indexSecretValidators(deps.secretValidators);
  const steps = {
    clients: deps.clients,
    directory: deps.directory,
    parseCredentials: createCredentialParser(deps.secretParsers, validators.judges),
    validateSecret: createSecretValidation(validators, deps.clock),
    throttle: createAttemptThrottle(deps.throttle, deps.clock),
  };
  const client = createClientAuthentication(steps);
  const apiResource = createApiResourceAuthentication({ ...steps, apiResources: deps.apiResources });
  const observe = createAttemptObserver(steps.throttle, deps.directory);
  const clientEvents = clientAuthenticationEvents(deps.events);
  const apiEvents = apiAuthenticationEvents(deps.events);
  return traced({
    authenticateClient: (source) => observe(source, clientEvents, client),
    authenticateApiResource: (source) => observe(source, apiEvents, apiResource),
  }, deps.tracing ?? tracingOff);
}
