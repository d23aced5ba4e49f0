/**
 * What an attempt reports (step 3b): one event for a success, one for a failure with the log-only
 * reason, and an alarm of its own when a disabled holder or an expired secret was presented.
 * Built once at start-up; never a secret in an event, only ids, methods and reasons.
 */
import type { EventService } from '../events/event-service.js';
import type { AssertionAudienceForm, ValidationObservations } from '../sdk/contracts.js';
import type { AuthenticatedApi, AuthenticatedClient, AuthenticationSource } from './types.js';

export interface AttemptReport<T> {
  /** The directory's kind of holder, for its last-use record. */
  readonly kind: 'client' | 'apiResource';
  idOf(result: T): string;
  success(result: T, source: AuthenticationSource): void;
  failure(id: string | undefined, method: string, reason: string, observations: ValidationObservations | undefined, source: AuthenticationSource): void;
  /** A disabled holder, or an expired secret, was presented: worth an alert of its own. */
  alarm(id: string, method: string, what: 'disabled' | 'expired_secret', source: AuthenticationSource): void;
}

/** The field only when there is a value, so events without it stay as they were. */
function audienceOf(o: ValidationObservations | undefined): { assertionAudience?: AssertionAudienceForm } {
  return o?.assertionAudience === undefined ? {} : { assertionAudience: o.assertionAudience };
}

export function clientAuthenticationEvents(events: EventService | undefined): AttemptReport<AuthenticatedClient> {
  return {
    kind: 'client',
    idOf: (r) => r.client.clientId,
    success: (r, source) =>
      events?.raise(
        { type: 'client.authenticated', clientId: r.client.clientId, method: r.method, endpoint: source.endpoint, ...audienceOf(r) },
        source.requestId,
      ),
    failure: (clientId, method, reason, observations, source) =>
      events?.raise(
        { type: 'client.authentication_failed', clientId, method, endpoint: source.endpoint, reason, ...audienceOf(observations) },
        source.requestId,
      ),
    alarm: (clientId, method, what, source) =>
      events?.raise(
        { type: what === 'disabled' ? 'client.disabled_used' : 'client.expired_secret_used', clientId, method, endpoint: source.endpoint },
        source.requestId,
      ),
  };
}

export function apiAuthenticationEvents(events: EventService | undefined): AttemptReport<AuthenticatedApi> {
  return {
    kind: 'apiResource',
    idOf: (r) => r.apiResource.name,
    success: (r, source) => events?.raise({ type: 'api.authenticated', apiResource: r.apiResource.name, method: r.method }, source.requestId),
    failure: (name, method, reason, _observations, source) =>
      events?.raise({ type: 'api.authentication_failed', apiResource: name, method, reason }, source.requestId),
    alarm: (apiResource, method, what, source) =>
      events?.raise({ type: what === 'disabled' ? 'api.disabled_used' : 'api.expired_secret_used', apiResource, method }, source.requestId),
  };
}
