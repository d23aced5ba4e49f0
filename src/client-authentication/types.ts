/**
 * The shapes client authentication hands between its steps and to its callers. Apart from the
 * steps so that each step file imports them without importing the composer.
 */
import type { ApiResource, Client } from '../config/schema.js';
import type { AssertionAudienceForm, CredentialSource, ParsedSecret, ValidationObservations } from '../sdk/contracts.js';

export interface AuthenticatedClient {
  readonly client: Client;
  /** The authentication method used, e.g. `client_secret_basic`, or `none` for a public client. */
  readonly method: string;
  /** The `aud` form of a `private_key_jwt` assertion (or a plugin's), for metrics. */
  readonly assertionAudience?: AssertionAudienceForm;
  /** The client authenticated with its TLS client certificate (a `fromConnection` parser, RFC 8705 §2). */
  readonly fromConnection?: boolean;
}

export interface AuthenticatedApi {
  readonly apiResource: ApiResource;
  readonly method: string;
}

/** The credentials of one request, with its id so the events it raises can be correlated. */
export type AuthenticationSource = CredentialSource & { readonly requestId?: string | undefined };

export interface ClientAuthenticator {
  authenticateClient(source: AuthenticationSource): Promise<AuthenticatedClient>;
  authenticateApiResource(source: AuthenticationSource): Promise<AuthenticatedApi>;
}

/** Credentials one secret parser found, and the method that found them. */
export interface FoundCredentials {
  readonly parsed: ParsedSecret;
  readonly method: string;
  readonly fromConnection: boolean;
}

/**
 * What one attempt has shown so far, filled in step by step: the observer counts and reports a
 * failure with it. One per request, the only object the pipeline itself allocates.
 */
export interface Attempt {
  id?: string | undefined;
  /** The authentication method that found credentials; `none` when none did. */
  method?: string | undefined;
  /** The throttle holds failures for the caller: a success resets them. */
  counted?: boolean;
  /** What the validators observed, e.g. the assertion's audience form. */
  observations?: ValidationObservations | undefined;
  /** The holder is disabled in its store. */
  disabled?: boolean;
  /** The credential matched one of the holder's expired secrets. */
  expiredSecret?: boolean;
}
