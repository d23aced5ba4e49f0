/**
 * Dynamic client registration (RFC 7591) and its management (RFC 7592) at `/connect/register`,
 * when `registration.enabled`. Registering takes the operator's initial access token; the
 * answer carries the client's id, a generated secret (stored only as its hash) and a
 * registration access token for `GET`/`PUT`/`DELETE` on `registration_client_uri`. A client
 * lands in the database store: this node sees it at once, every other node within
 * `clientStores.refreshInterval`.
 */
import { randomBytes } from 'node:crypto';
import type { ResolvedConfig } from '../config/schema.js';
import { ClientAdminError, type ClientAdmin } from '../clients/client-admin.js';
import { InvalidClientMetadata, InvalidRequest, OAuthError } from '../oauth/errors.js';
import type { Clock } from '../sdk/contracts.js';
import { definitionFromMetadata, metadataOf } from '../registration/client-metadata.js';
import type { RegistrationTokens } from '../registration/registration-tokens.js';
import { paths } from './urls.js';

export interface RegistrationRequest {
  readonly authorization: string | undefined;
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
  clock: Clock;
  /** Makes this node see a change at once (the others follow within the refresh interval). */
  refresh(): Promise<void>;
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
  const { admin, tokens, config } = deps;
  const offered = { idTokenAlgorithms: config.signing.idTokenAlgorithms, certificateBoundTokens: deps.certificateBoundTokens };
  const clientUri = (id: string): string => `${config.issuer}${paths.register}/${encodeURIComponent(id)}`;

  async function authorized(request: RegistrationRequest): Promise<string> {
    const token = bearer(request.authorization);
    const id = await tokens.accessFor(token);
    if (id === undefined || id !== request.clientId) throw invalidToken(id === undefined ? 'unknown registration access token' : `token of client "${id}" used for "${request.clientId}"`);
    return id;
  }

  return {
    /** POST /connect/register (RFC 7591 §3.1): 201 with the client's information. */
    async register(request: RegistrationRequest): Promise<RegistrationAnswer> {
      const initial = bearer(request.authorization);
      if (!(await tokens.isInitial(initial))) throw invalidToken('unknown or expired initial access token');
      const definition = definitionFromMetadata(jsonObject(request.body), config.registration, offered);
      const id = randomBytes(16).toString('base64url');
      const secret = await admin.add('client', id, definition).catch(refused);
      const registrationToken = await tokens.issueAccess(id);
      await deps.refresh();
      return {
        status: 201,
        body: {
          ...metadataOf(id, definition),
          ...(secret ? { client_secret: secret.value, client_secret_expires_at: 0 } : {}),
          client_id_issued_at: Math.floor(deps.clock.now() / 1000),
          registration_access_token: registrationToken,
          registration_client_uri: clientUri(id),
        },
      };
    },
    /** GET (RFC 7592 §2.1): the client's current metadata; its secret is stored hashed, so never in it. */
    async read(request: RegistrationRequest): Promise<RegistrationAnswer> {
      const id = await authorized(request);
      const record = await admin.show('client', id).catch(() => undefined);
      if (!record) throw invalidToken(`client "${id}" no longer exists`);
      return { status: 200, body: { ...metadataOf(id, record.definition), registration_client_uri: clientUri(id) } };
    },
    /** PUT (RFC 7592 §2.2): the metadata sent replaces the client's; what is left out takes its default. */
    async update(request: RegistrationRequest): Promise<RegistrationAnswer> {
      const id = await authorized(request);
      const body = jsonObject(request.body);
      if (body.client_id !== id) throw new InvalidRequest('client_id in the body must be the client being updated.');
      const definition = definitionFromMetadata(body, config.registration, offered);
      const record = await admin.show('client', id).catch(() => undefined);
      if (!record) throw invalidToken(`client "${id}" no longer exists`);
      const changes: Record<string, unknown> = Object.fromEntries(Object.keys(record.definition).map((k) => [k, null]));
      await admin.update('client', id, { ...changes, ...definition }).catch(refused);
      await deps.refresh();
      return { status: 200, body: { ...metadataOf(id, definition), registration_client_uri: clientUri(id) } };
    },
    /** DELETE (RFC 7592 §2.3): 204, and the registration access token stops working. */
    async remove(request: RegistrationRequest): Promise<RegistrationAnswer> {
      const id = await authorized(request);
      await admin.remove('client', id).catch(() => undefined);
      await tokens.removeAccess(id);
      await deps.refresh();
      return { status: 204, body: undefined };
    },
  };
}

export type RegistrationEndpoint = ReturnType<typeof createRegistrationEndpoint>;
