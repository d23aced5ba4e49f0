/**
 * Typed events, after IdentityServer's event service. An event says who did what and how it
 * ended; it never carries a secret, password, assertion, code or token.
 */

/**
 * The form of a client assertion's `aud` (RFC 7523 §3, RFC 10070): the issuer identifier, the
 * token endpoint URL, or anything else (another endpoint's URL, several values, a stranger's URL).
 */
export type AssertionAudienceForm = 'issuer' | 'token_endpoint' | 'other';

export type ServiceEvent =
  | { type: 'token.issued'; clientId: string; grantType: string; subject: string; scopes: readonly string[] }
  | { type: 'token.failed'; clientId: string | undefined; grantType: string | undefined; error: string }
  | { type: 'client.authenticated'; clientId: string; method: string; endpoint: string; assertionAudience?: AssertionAudienceForm }
  | {
      type: 'client.authentication_failed';
      clientId: string | undefined;
      method: string;
      endpoint: string;
      reason: string;
      /** Only when the assertion's signature verified with this client's key, so `clientId` is the client's. */
      assertionAudience?: AssertionAudienceForm;
    }
  /** A disabled client presented credentials (an operator may want to know who still uses it). */
  | { type: 'client.disabled_used'; clientId: string; method: string; endpoint: string }
  /** A client presented a secret that matches one of its expired secrets: a rotation someone missed. */
  | { type: 'client.expired_secret_used'; clientId: string; method: string; endpoint: string }
  | { type: 'api.authenticated'; apiResource: string; method: string }
  | { type: 'api.disabled_used'; apiResource: string; method: string }
  | { type: 'api.expired_secret_used'; apiResource: string; method: string }
  | { type: 'api.authentication_failed'; apiResource: string | undefined; method: string; reason: string }
  | { type: 'token.introspected'; apiResource: string; active: boolean; clientId: string | undefined }
  | { type: 'token.revoked'; clientId: string; tokenType: string }
  | { type: 'device.authorized'; clientId: string; scopes: readonly string[] }
  | { type: 'device.approved'; clientId: string; subject: string }
  | { type: 'device.denied'; clientId: string; subject: string }
  | { type: 'user.signed_in'; subject: string; via: string }
  | { type: 'user.sign_in_failed'; via: string; reason: string }
  | { type: 'consent.given'; clientId: string; subject: string; scopes: readonly string[] }
  | { type: 'consent.denied'; clientId: string; subject: string }
  | { type: 'code.issued'; clientId: string; subject: string; scopes: readonly string[] }
  | { type: 'code.redeemed'; clientId: string; subject: string }
  | { type: 'user.signed_out'; subject: string; clientId: string | undefined }
  /** Issue 35: a second factor set up, used, refused or removed; `factor` is `totp`, `recovery` or `passkey` (never a code, secret or assertion). */
  | { type: 'second_factor.enrolled'; subject: string; factor: 'totp' | 'recovery' | 'passkey' }
  | { type: 'second_factor.used'; subject: string; factor: 'totp' | 'recovery' | 'passkey'; via: string }
  | { type: 'second_factor.failed'; subject: string; via: string; reason: 'wrong' | 'replayed' | 'throttled' }
  | { type: 'second_factor.removed'; subject: string; factor: 'totp' | 'recovery' | 'passkey' | 'all'; by: 'user' | 'operator' }
  /** OIDC Back-Channel Logout 1.0: a client was told of a sign-out (`delivered`), or could not be (`reason`, never the token). */
  | { type: 'logout.notified'; clientId: string; subject: string; delivered: boolean; reason?: string; attempt?: number }
  /** A back-channel logout given up after its last attempt (or past its time), never the token. */
  | { type: 'logout.failed'; clientId: string; subject: string; attempts: number; reason: string }
  /** Issue 34, "Forgot password?": never the address typed, the link or the mail. `subject` when an account matched. */
  | { type: 'password_reset.requested'; subject?: string; outcome: 'mailing' | 'no_account' | 'throttled' }
  | { type: 'password_reset.sent'; subject: string; delivered: boolean; reason?: string }
  | { type: 'password_reset.used'; subject: string }
  /**
   * A call to the admin API (issue 39): who (the token's client, or the `admin.tls.clients` entry's
   * operator, once known), what, and how it ended; behind mutual TLS, which certificate; never a body.
   */
  | { type: 'admin.request'; clientId: string | undefined; method: string; path: string; status: number; certificateSubject?: string; certificateThumbprint?: string }
  | { type: 'plugin.loaded'; plugin: string; source: string; grantTypes: readonly string[]; authenticationMethods: readonly string[] };

export type ServiceEventType = ServiceEvent['type'];

/** An event as sinks receive it: stamped with time and, inside a request, its id. */
export type RaisedEvent = ServiceEvent & { readonly time: string; readonly requestId?: string };

/** Receives every event. A sink that throws or rejects is logged and never disturbs a request. */
export interface EventSink {
  /** The event types this sink takes; every type when absent. Read once, at start-up. */
  readonly types?: readonly ServiceEventType[];
  handle(event: RaisedEvent): void | Promise<void>;
}
