/**
 * Step 3c, trace: a span around each authentication when tracing is on; with it off the
 * authenticator is returned as is, so the hot path pays nothing.
 */
import type { Tracing } from '../tracing/tracing.js';
import type { ClientAuthenticator } from './types.js';

export function traced(authenticator: ClientAuthenticator, tracing: Tracing): ClientAuthenticator {
  if (!tracing.enabled) return authenticator;
  return {
    authenticateClient(source) {
      // On failure the span records invalid_client only: the client id a caller claimed may be anything it typed.
      return tracing.span('client_authentication', { 'svc.endpoint': source.endpoint }, async (span) => {
        const result = await authenticator.authenticateClient(source);
        span.setAttributes({ 'oauth.client_id': result.client.clientId, 'oauth.client_auth_method': result.method });
        return result;
      });
    },
    authenticateApiResource(source) {
      return tracing.span('api_resource_authentication', { 'svc.endpoint': source.endpoint }, async (span) => {
        const result = await authenticator.authenticateApiResource(source);
        span.setAttributes({ 'oauth.api_resource': result.apiResource.name, 'oauth.client_auth_method': result.method });
        return result;
      });
    },
  };
}
