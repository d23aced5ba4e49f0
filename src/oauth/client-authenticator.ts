/**
 * Authenticates the caller of an endpoint: secret parsers find credentials, secret validators
 * judge them against the holder's unexpired secrets. Every failure looks the same to the caller
 * (`invalid_client`); the log says which check failed.
 */
import type { ApiResource, Client, Secret } from '../config/schema.js';
import type {
  AssertionAudienceForm, Clock, CredentialSource, ParsedSecret, SecretHolder, SecretParser, SecretValidator, ValidationObservations,
} from '../sdk/contracts.js';
import type { EventService } from '../events/event-service.js';
import { tracingOff, type Tracing } from '../tracing/tracing.js';
import type { AuthThrottle } from '../throttling/auth-throttle.js';
import { InvalidClient, InvalidRequest, isOAuthError, type OAuthError } from './errors.js';
import type { ClientDirectory, Lookup } from '../clients/client-directory.js';

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

/** What the credentials claimed, once parsed: for counting and reporting failures. */
interface Seen {
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

export interface ClientAuthenticatorDeps {
  clients: Lookup<Client>;
  apiResources: Lookup<ApiResource>;
  /** Disabled entries and last use, when clients come from stores (`src/clients`). */
  directory?: Pick<ClientDirectory, 'isDisabled' | 'used'> | undefined;
  secretParsers: readonly SecretParser[];
  secretValidators: readonly SecretValidator[];
  clock: Clock;
  throttle?: AuthThrottle | undefined;
  events?: EventService | undefined;
  /** A span around each authentication; default none. */
  tracing?: Tracing | undefined;
}

/** RFC 6749 §5.2: a client that used the Authorization header gets a challenge for its scheme. */
function challenge(source: CredentialSource): Record<string, string> | undefined {
  const scheme = source.authorization?.split(' ', 1)[0];
  return scheme && /^[A-Za-z][\w.-]*$/.test(scheme) ? { 'WWW-Authenticate': `${scheme} realm="svc"` } : undefined;
}

const CLIENT_DENIED = 'Client authentication failed.';
/**
 * Every failure at introspection answers this one text: a wrong secret, an unknown name and a
 * client's credentials alike, so the caller learns nothing about which ids exist or what they
 * are, and a client's developer who tried their own credentials is told what the endpoint takes
 * (RFC 7662 §2.1 leaves the caller's authentication to the server).
 */
const API_DENIED = "API resource authentication failed: introspection takes an API resource's name and secret, not a client's.";

function denied(source: CredentialSource, logDetail: string, description = CLIENT_DENIED): OAuthError {
  return new InvalidClient(description, { logDetail, headers: challenge(source) ?? {} });
}

/** The field only when there is a value, so events without it stay as they were. */
function audienceOf(o: ValidationObservations | undefined): { assertionAudience?: AssertionAudienceForm } {
  return o?.assertionAudience === undefined ? {} : { assertionAudience: o.assertionAudience };
}

export function createClientAuthenticator(deps: ClientAuthenticatorDeps): ClientAuthenticator {
  const validatorsByType = new Map<string, SecretValidator[]>();
  for (const v of deps.secretValidators) {
    for (const t of v.parsedSecretTypes) validatorsByType.set(t, [...(validatorsByType.get(t) ?? []), v]);
  }
  const requestParsers = deps.secretParsers.filter((p) => p.fromConnection !== true);
  const connectionParsers = deps.secretParsers.filter((p) => p.fromConnection === true);

  type Found = { parsed: ParsedSecret; method: string; fromConnection: boolean };

  async function parse(source: CredentialSource, description: string, secretsOf: (id: string) => readonly Secret[] | undefined): Promise<Found | undefined> {
    const inRequest = await parseWith(requestParsers, source, description);
    // A certificate at the TLS layer only authenticates when the request itself carries no credentials.
    if (inRequest || connectionParsers.length === 0) return inRequest;
    const found = await parseWith(connectionParsers, source, description);
    // RFC 8705 §4: a holder with no secret that could judge the certificate (a public client, one
    // with shared secrets only) presents it only to bind its tokens. Decided here, over the holder
    // the directory resolved, so a client from any store is treated like a config client.
    const secrets = found && secretsOf(found.parsed.id);
    if (found && secrets !== undefined && !secrets.some((s) => judges(found.parsed.type, s.type))) return undefined;
    return found;
  }

  function judges(parsedType: string, secretType: string): boolean {
    return (validatorsByType.get(parsedType) ?? []).some((v) => v.secretTypes.includes(secretType));
  }

  async function parseWith(parsers: readonly SecretParser[], source: CredentialSource, description: string): Promise<Found | undefined> {
    const found: Found[] = [];
    for (const parser of parsers) {
      let parsed: ParsedSecret | undefined;
      try {
        parsed = await parser.parse(source);
      } catch (err) {
        if (isOAuthError(err) && err.code === 'invalid_client') throw denied(source, err.logDetail ?? err.description, description);
        throw err;
      }
      if (parsed) found.push({ parsed, method: parser.authenticationMethod, fromConnection: parser.fromConnection === true });
    }
    // RFC 6749 §2.3: a client must not use more than one authentication method per request.
    if (found.length > 1) {
      throw new InvalidRequest('More than one client authentication method was used.', {
        logDetail: `methods: ${found.map((f) => f.method).join(', ')}`,
      });
    }
    return found[0];
  }

  async function validate(
    found: Found,
    holder: SecretHolder,
    secrets: readonly Secret[],
    source: CredentialSource,
    seen: Seen,
    description: string,
  ): Promise<void> {
    const now = deps.clock.now();
    const live = secrets.filter((s) => s.expiresAt === undefined || s.expiresAt > now);
    const reasons: string[] = [];
    for (const validator of validatorsByType.get(found.parsed.type) ?? []) {
      const own = live.filter((s) => validator.secretTypes.includes(s.type));
      if (own.length === 0) continue;
      const result = await validator.validate({ parsed: found.parsed, secrets: own, holder, endpoint: source.endpoint });
      if (result.assertionAudience !== undefined) seen.observations = { assertionAudience: result.assertionAudience };
      if (result.success) return;
      reasons.push(result.reason);
    }
    if (reasons.length === 0) {
      reasons.push(live.length < secrets.length ? 'no unexpired secret of a fitting type' : 'no secret of a fitting type');
    }
    if (live.length < secrets.length && (await matchesExpired(found, holder, secrets.filter((s) => !live.includes(s)), source))) {
      reasons.push('the secret presented is one that has expired');
      seen.expiredSecret = true;
    }
    throw denied(source, `${found.method} for "${found.parsed.id}": ${reasons.join('; ')}`, description);
  }

  /**
   * Only after a failure, so the success path pays nothing: does the credential match a secret
   * that has expired? Then a rotation was missed somewhere, which an operator wants to hear of.
   * Shared secrets only: checking an assertion would spend its `jti` (RFC 7523 §3) on a refusal.
   */
  async function matchesExpired(found: { parsed: ParsedSecret }, holder: SecretHolder, expired: readonly Secret[], source: CredentialSource): Promise<boolean> {
    if (found.parsed.type !== 'SharedSecret') return false;
    for (const validator of validatorsByType.get(found.parsed.type) ?? []) {
      const own = expired.filter((s) => validator.secretTypes.includes(s.type));
      if (own.length === 0) continue;
      try {
        if ((await validator.validate({ parsed: found.parsed, secrets: own, holder, endpoint: source.endpoint })).success) return true;
      } catch {
        // A validator that throws on an old secret tells us nothing; the failure stands either way.
      }
    }
    return false;
  }

  async function client(source: CredentialSource, seen: Seen): Promise<AuthenticatedClient> {
    const found = await parse(source, CLIENT_DENIED, (id) => deps.clients.get(id)?.clientSecrets);
    seen.id = found?.parsed.id;
    seen.method = found?.method;
    const claimedId = source.params.get('client_id');
    if (!found) {
      const known = claimedId === undefined ? undefined : deps.clients.get(claimedId);
      if (known && !known.requireClientSecret) {
        pinned(known, 'none', source);
        return { client: known, method: 'none' };
      }
      if (claimedId !== undefined && deps.directory?.isDisabled('client', claimedId)) {
        seen.disabled = true;
        throw denied(source, `none for "${claimedId}": the client is disabled`);
      }
      throw denied(source, claimedId === undefined ? 'no client credentials' : `no credentials for client "${claimedId}"`);
    }
    if (claimedId !== undefined && claimedId !== found.parsed.id) {
      throw denied(source, `client_id "${claimedId}" does not match the authenticated client`);
    }
    const throttling = throttled(found.parsed.id, source, seen);
    if (throttling) await throttling;
    const holder = deps.clients.get(found.parsed.id);
    if (!holder) {
      if (deps.directory?.isDisabled('client', found.parsed.id)) {
        seen.disabled = true;
        throw denied(source, `${found.method} for "${found.parsed.id}": the client is disabled`);
      }
      throw denied(source, `${found.method}: unknown client`);
    }
    pinned(holder, found.method, source);
    await validate(found, { kind: 'client', client: holder }, holder.clientSecrets, source, seen, CLIENT_DENIED);
    return { client: holder, method: found.method, ...seen.observations, ...(found.fromConnection ? { fromConnection: true } : {}) };
  }

  async function apiResource(source: CredentialSource, seen: Seen): Promise<AuthenticatedApi> {
    const found = await parse(source, API_DENIED, (id) => deps.apiResources.get(id)?.secrets);
    seen.id = found?.parsed.id;
    seen.method = found?.method;
    if (!found) throw denied(source, 'no API credentials', API_DENIED);
    const throttling = throttled(found.parsed.id, source, seen);
    if (throttling) await throttling;
    const holder = deps.apiResources.get(found.parsed.id);
    if (!holder && deps.directory?.isDisabled('apiResource', found.parsed.id)) {
      seen.disabled = true;
      throw denied(source, `${found.method} for "${found.parsed.id}": the API resource is disabled`, API_DENIED);
    }
    if (!holder) {
      // The log may say what the caller is not told: that the id is a client's.
      const what = deps.clients.has(found.parsed.id) ? 'a client, not an API resource' : 'unknown API resource';
      throw denied(source, `${found.method} for "${found.parsed.id}": ${what}`, API_DENIED);
    }
    await validate(found, { kind: 'apiResource', apiResource: holder }, holder.secrets, source, seen, API_DENIED);
    return { apiResource: holder, method: found.method };
  }

  /** RFC 7591 §2 `token_endpoint_auth_method`: a client that pinned its methods cannot be downgraded to another. */
  function pinned(client: Client, method: string, source: CredentialSource): void {
    const allowed = client.tokenEndpointAuthMethods;
    if (allowed !== undefined && !allowed.includes(method)) {
      throw denied(source, `${method} for "${client.clientId}": ${method} is not in the client's tokenEndpointAuthMethods (${allowed.join(', ')})`);
    }
  }

  /** A promise only when the counters are shared: in memory the hot path awaits nothing. */
  function throttled(id: string, source: CredentialSource, seen: Seen): Promise<void> | undefined {
    if (!deps.throttle || !source.remoteAddress) return undefined;
    const counted = deps.throttle.check(id, source.remoteAddress, deps.clock.now());
    if (typeof counted === 'boolean') {
      seen.counted = counted;
      return undefined;
    }
    return counted.then((c) => {
      seen.counted = c;
    });
  }

  /** Counts failures for the throttle and reports both outcomes as events. */
  async function observed<T>(kind: 'client' | 'apiResource', source: CredentialSource, attempt: (seen: Seen) => Promise<T>, idOf: (r: T) => string, report: {
    success: (r: T) => void;
    failure: (id: string | undefined, method: string, reason: string, observations: ValidationObservations | undefined) => void;
    /** A disabled holder, or an expired secret, was presented: worth an alert of its own. */
    alarm: (id: string, method: string, what: 'disabled' | 'expired_secret') => void;
  }): Promise<T> {
    const seen: Seen = {};
    try {
      const result = await attempt(seen);
      if (deps.throttle && source.remoteAddress && seen.counted) {
        const reset = deps.throttle.succeeded(idOf(result), source.remoteAddress);
        if (reset) await reset;
      }
      report.success(result);
      deps.directory?.used(kind, idOf(result));
      return result;
    } catch (err) {
      if (isOAuthError(err) && err.code === 'invalid_client' && err.status === 401) {
        const id = seen.id ?? source.params.get('client_id');
        report.failure(id, seen.method ?? 'none', err.logDetail ?? err.description, seen.observations);
        if (id !== undefined && seen.disabled) report.alarm(id, seen.method ?? 'none', 'disabled');
        if (id !== undefined && seen.expiredSecret) report.alarm(id, seen.method ?? 'none', 'expired_secret');
        if (deps.throttle && source.remoteAddress) {
          const counting = deps.throttle.failed(id, source.remoteAddress, deps.clock.now());
          if (counting) await counting;
        }
      }
      throw err;
    }
  }

  const tracing = deps.tracing ?? tracingOff;
  if (!tracing.enabled) return { authenticateClient, authenticateApiResource };
  return {
    authenticateClient(source) {
      // On failure the span records invalid_client only: the client id a caller claimed may be anything it typed.
      return tracing.span('client_authentication', { 'svc.endpoint': source.endpoint }, async (span) => {
        const result = await authenticateClient(source);
        span.setAttributes({ 'oauth.client_id': result.client.clientId, 'oauth.client_auth_method': result.method });
        return result;
      });
    },
    authenticateApiResource(source) {
      return tracing.span('api_resource_authentication', { 'svc.endpoint': source.endpoint }, async (span) => {
        const result = await authenticateApiResource(source);
        span.setAttributes({ 'oauth.api_resource': result.apiResource.name, 'oauth.client_auth_method': result.method });
        return result;
      });
    },
  };

  function authenticateClient(source: AuthenticationSource): Promise<AuthenticatedClient> {
    return observed('client', source, (seen) => client(source, seen), (r) => r.client.clientId, {
      success: (r) =>
        deps.events?.raise(
          { type: 'client.authenticated', clientId: r.client.clientId, method: r.method, endpoint: source.endpoint, ...audienceOf(r) },
          source.requestId,
        ),
      failure: (clientId, method, reason, observations) =>
        deps.events?.raise(
          { type: 'client.authentication_failed', clientId, method, endpoint: source.endpoint, reason, ...audienceOf(observations) },
          source.requestId,
        ),
      alarm: (clientId, method, what) =>
        deps.events?.raise(
          { type: what === 'disabled' ? 'client.disabled_used' : 'client.expired_secret_used', clientId, method, endpoint: source.endpoint },
          source.requestId,
        ),
    });
  }

  function authenticateApiResource(source: AuthenticationSource): Promise<AuthenticatedApi> {
    return observed('apiResource', source, (seen) => apiResource(source, seen), (r) => r.apiResource.name, {
      success: (r) => deps.events?.raise({ type: 'api.authenticated', apiResource: r.apiResource.name, method: r.method }, source.requestId),
      failure: (name, method, reason) =>
        deps.events?.raise({ type: 'api.authentication_failed', apiResource: name, method, reason }, source.requestId),
      alarm: (apiResource, method, what) =>
        deps.events?.raise({ type: what === 'disabled' ? 'api.disabled_used' : 'api.expired_secret_used', apiResource, method }, source.requestId),
    });
  }
}
