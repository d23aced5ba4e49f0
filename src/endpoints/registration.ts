/**
 * Dynamic client registration (RFC 7591) and its management (RFC 7592) at `/connect/register`,
 * when `registration.enabled`. Registering takes the operator's initial access token (one use
 * of its quota); the answer carries the client's id, a generated secret (stored only as its
 * hash) and a registration access token for `GET`/`PUT`/`DELETE` on `registration_client_uri`,
 * replaced on every `PUT` and expiring. Wrong tokens are throttled per address before any store
 * read (`token-throttle.ts`). A client lands in the database store: this node sees it at once,
 * every other node within `clientStores.refreshInterval`.
 *
 * Issue 36: under `registration.policy: "open"` a caller without an Authorization header may
 * register too, but only a public client (`clients/registration/open-policy.ts`), rate-limited per
 * address and overall; a caller with an initial access token still gets the full policy.
 */
import { randomBytes } from 'node:crypto';
import type { ResolvedConfig } from '../config/schema.js';
import { ClientAdminError, type ClientAdmin } from '../clients/client-admin.js';
import { InvalidClientMetadata, InvalidRequest, OAuthError } from '../oauth/errors.js';
import type { Clock } from '../sdk/contracts.js';
import { definitionFromMetadata, metadataOf } from '../clients/registration/client-metadata.js';
import { registeredDefinition } from '../clients/registration/registrant-fields.js';
import type { RegistrationTokens } from '../clients/registration/registration-tokens.js';
import type { RegistrationTokenThrottle } from '../throttling/registration-token-throttle.js';
import type { OpenRegistrationLimit } from '../throttling/open-registration-limit.js';
import { isOpenRegistration, openMetadata, openPolicyOf, openRegistrationProperty } from '../clients/registration/open-policy.js';
import { paths } from './urls.js';

export interface RegistrationRequest {
  readonly authorization: string | undefined;
  /** The caller's address, for the wrong-token throttle. */
  readonly remoteAddress?: string;
  /** The parsed JSON body; `undefined` for GET and DELETE. */
  readonly body?: unknown;
  readonly clientId?: string;
}

export interface RegistrationAnswer {
  readonly status: number;
  readonly body: Record<string, unknown> | undefined;
}

export interface RegistrationDeps {
  config: Pick<ResolvedConfig, 'issuer' | 'registration' | 'signing'>;
  /** The service receives TLS client certificates: a client may ask for certificate-bound tokens. */
  certificateBoundTokens: boolean;
  admin: ClientAdmin;
  tokens: RegistrationTokens;
  throttle: RegistrationTokenThrottle;
  clock: Clock;
  /** Makes this node see a change at once (the others follow within the refresh interval). */
  refresh(): Promise<void>;
  /** Issue 36: the anonymous registrations' rate limit, under the `"open"` policy. */
  openLimit?: OpenRegistrationLimit | undefined;
}

/** RFC 6750 §3: a missing or wrong bearer token. The same answer whatever the reason. */
function invalidToken(logDetail: string): OAuthError {
  return new OAuthError('invalid_token', 'The access token is missing or invalid.', { logDetail, headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' } });
}

function bearer(authorization: string | undefined): string {
  const match = /^Bearer ([\w.~+/-]+=*)$/i.exec(authorization ?? '');
  if (!match || match[1]!.length > 200) throw invalidToken(authorization === undefined ? 'no Authorization header' : 'not a Bearer token');
  return match[1]!;
}

function jsonObject(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new InvalidClientMetadata('The request body must be a JSON object of client metadata.');
  return body as Record<string, unknown>;
}

/** The config's rules refused the definition: which rule goes to the log, as descriptions never quote the request. */
function refused(err: unknown): never {
  if (err instanceof ClientAdminError) throw new InvalidClientMetadata('The client metadata is not accepted.', { logDetail: err.message });
  throw err;
}

export function createRegistrationEndpoint(deps: RegistrationDeps) {
  const { admin, tokens, throttle, config, clock } = deps;
  const offered = { idTokenAlgorithms: config.signing.idTokenAlgorithms, certificateBoundTokens: deps.certificateBoundTokens };
  const clientUri = (id: string): string => `${config.issuer}${paths.register}/${encodeURIComponent(id)}`;
  const accessLifetime = config.registration.registrationAccessTokenLifetime;
  const openPolicy = config.registration.policy === 'open' ? openPolicyOf(config.registration) : undefined;

  /** The bearer token, once the address may try; a wrong one is counted against the address. */
  async function presented(request: RegistrationRequest, valid: (token: string) => Promise<boolean>): Promise<string> {
    await throttle.check(request.remoteAddress, clock.now());
    let token: string;
    try {
      token = bearer(request.authorization);
    } catch (err) {
      await throttle.failed(request.remoteAddress, clock.now());
      throw err;
    }
    if (!(await valid(token))) {
      await throttle.failed(request.remoteAddress, clock.now());
      throw invalidToken('unknown, expired or used-up registration token');
    }
    return token;
  }

  /** The registration access token, when it opens the client the URI names. */
  async function authorized(request: RegistrationRequest): Promise<{ id: string; token: string }> {
    let id: string | undefined;
    const token = await presented(request, async (t) => (id = await tokens.accessFor(t)) !== undefined && id === request.clientId);
    return { id: id!, token };
  }

  /** The registration's answer (RFC 7591 §3.2.1), once the client is stored. */
  async function registered(id: string, definition: Record<string, unknown>, secret: { value: string } | undefined): Promise<RegistrationAnswer> {
    const registrationToken = await tokens.issueAccess(id, accessLifetime);
    await deps.refresh();
    return {
      status: 201,
      body: {
        ...metadataOf(id, definition),
        ...(secret ? { client_secret: secret.value, client_secret_expires_at: 0 } : {}),
        client_id_issued_at: Math.floor(clock.now() / 1000),
        registration_access_token: registrationToken,
        registration_client_uri: clientUri(id),
      },
    };
  }

  /** Issue 36: an anonymous caller under the `"open"` policy, counted before anything is read or written. */
  async function registerOpenly(request: RegistrationRequest, policy: typeof config.registration): Promise<RegistrationAnswer> {
    await deps.openLimit?.admit(request.remoteAddress);
    const definition = registeredDefinition(definitionFromMetadata(openMetadata(jsonObject(request.body)), policy, offered));
    definition.properties = { ...(definition.properties as Record<string, string>), [openRegistrationProperty]: 'true' };
    const id = randomBytes(16).toString('base64url');
    await admin.add('client', id, definition).catch(refused);
    return registered(id, definition, undefined);
  }

  return {
    /** POST /connect/register (RFC 7591 §3.1): 201 with the client's information. */
    async register(request: RegistrationRequest): Promise<RegistrationAnswer> {
      if (openPolicy && request.authorization === undefined) return registerOpenly(request, openPolicy);
      const initial = await presented(request, (t) => tokens.isInitial(t));
      const definition = registeredDefinition(definitionFromMetadata(jsonObject(request.body), config.registration, offered));
      // One use of the token's quota, taken only for metadata that passed, given back if the store refuses it.
      if (!(await tokens.takeInitialUse(initial))) throw invalidToken('initial access token used up');
      const id = randomBytes(16).toString('base64url');
      const secret = await admin.add('client', id, definition).catch(async (err: unknown) => {
        await tokens.returnInitialUse(initial);
        return refused(err);
      });
      return registered(id, definition, secret);
    },
    /** GET (RFC 7592 §2.1): the client's current metadata; its secret is stored hashed, so never in it. */
    async read(request: RegistrationRequest): Promise<RegistrationAnswer> {
      const { id } = await authorized(request);
      const record = await admin.show('client', id).catch(() => undefined);
      if (!record) throw invalidToken(`client "${id}" no longer exists`);
      return { status: 200, body: { ...metadataOf(id, record.definition), registration_client_uri: clientUri(id) } };
    },
    /**
     * PUT (RFC 7592 §2.2): the metadata sent replaces the registrant's own (what is left out takes
     * its default); the operator's fields stay. The answer carries a new registration access
     * token and the old one stops working (§3).
     */
    async update(request: RegistrationRequest): Promise<RegistrationAnswer> {
      const { id, token } = await authorized(request);
      const body = jsonObject(request.body);
      if (body.client_id !== id) throw new InvalidRequest('client_id in the body must be the client being updated.');
      const record = await admin.show('client', id).catch(() => undefined);
      if (!record) throw invalidToken(`client "${id}" no longer exists`);
      // Issue 36: an anonymous registrant stays within the open policy when it updates.
      const open = isOpenRegistration(record.definition);
      const requested = definitionFromMetadata(open ? openMetadata(body) : body, open ? openPolicyOf(config.registration) : config.registration, offered);
      const definition = registeredDefinition(requested, record.definition);
      await admin.replace('client', id, definition).catch(refused);
      const registrationToken = await tokens.rotateAccess(token, id, accessLifetime);
      await deps.refresh();
      return { status: 200, body: { ...metadataOf(id, definition), registration_access_token: registrationToken, registration_client_uri: clientUri(id) } };
    },
    /** DELETE (RFC 7592 §2.3): 204, and the registration access token stops working. */
    async remove(request: RegistrationRequest): Promise<RegistrationAnswer> {
      const { id } = await authorized(request);
      await admin.remove('client', id).catch(() => undefined);
      await tokens.removeAccess(id);
      await deps.refresh();
      return { status: 204, body: undefined };
    },
  };
}

export type RegistrationEndpoint = ReturnType<typeof createRegistrationEndpoint>;
