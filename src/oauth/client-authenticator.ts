/**
 * Authenticates the caller of an endpoint: secret parsers find credentials, secret validators
 * judge them against the holder's unexpired secrets. Every failure looks the same to the caller
 * (`invalid_client`); the log says which check failed.
 */
import type { ApiResource, Client, Secret } from '../config/schema.js';
import type {
  Clock, CredentialSource, ParsedSecret, SecretHolder, SecretParser, SecretValidator,
} from '../sdk/contracts.js';
import { InvalidClient, InvalidRequest, isOAuthError, type OAuthError } from './errors.js';

export interface AuthenticatedClient {
  readonly client: Client;
  /** The authentication method used, e.g. `client_secret_basic`, or `none` for a public client. */
  readonly method: string;
}

export interface AuthenticatedApi {
  readonly apiResource: ApiResource;
  readonly method: string;
}

export interface ClientAuthenticator {
  authenticateClient(source: CredentialSource): Promise<AuthenticatedClient>;
  authenticateApiResource(source: CredentialSource): Promise<AuthenticatedApi>;
}

export interface ClientAuthenticatorDeps {
  clients: ReadonlyMap<string, Client>;
  apiResources: ReadonlyMap<string, ApiResource>;
  secretParsers: readonly SecretParser[];
  secretValidators: readonly SecretValidator[];
  clock: Clock;
}

/** RFC 6749 §5.2: a client that used the Authorization header gets a challenge for its scheme. */
function challenge(source: CredentialSource): Record<string, string> | undefined {
  const scheme = source.authorization?.split(' ', 1)[0];
  return scheme && /^[A-Za-z][\w.-]*$/.test(scheme) ? { 'WWW-Authenticate': `${scheme} realm="svc"` } : undefined;
}

function denied(source: CredentialSource, logDetail: string): OAuthError {
  return new InvalidClient('Client authentication failed.', { logDetail, headers: challenge(source) ?? {} });
}

export function createClientAuthenticator(deps: ClientAuthenticatorDeps): ClientAuthenticator {
  const validatorsByType = new Map<string, SecretValidator[]>();
  for (const v of deps.secretValidators) {
    for (const t of v.parsedSecretTypes) validatorsByType.set(t, [...(validatorsByType.get(t) ?? []), v]);
  }

  async function parse(source: CredentialSource): Promise<{ parsed: ParsedSecret; method: string } | undefined> {
    const found: Array<{ parsed: ParsedSecret; method: string }> = [];
    for (const parser of deps.secretParsers) {
      let parsed: ParsedSecret | undefined;
      try {
        parsed = await parser.parse(source);
      } catch (err) {
        if (isOAuthError(err) && err.code === 'invalid_client') throw denied(source, err.logDetail ?? err.description);
        throw err;
      }
      if (parsed) found.push({ parsed, method: parser.authenticationMethod });
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
    found: { parsed: ParsedSecret; method: string },
    holder: SecretHolder,
    secrets: readonly Secret[],
    source: CredentialSource,
  ): Promise<void> {
    const now = deps.clock.now();
    const live = secrets.filter((s) => s.expiresAt === undefined || s.expiresAt > now);
    const reasons: string[] = [];
    for (const validator of validatorsByType.get(found.parsed.type) ?? []) {
      const own = live.filter((s) => validator.secretTypes.includes(s.type));
      if (own.length === 0) continue;
      const result = await validator.validate({ parsed: found.parsed, secrets: own, holder, endpoint: source.endpoint });
      if (result.success) return;
      reasons.push(result.reason);
    }
    if (reasons.length === 0) {
      reasons.push(live.length < secrets.length ? 'no unexpired secret of a fitting type' : 'no secret of a fitting type');
    }
    throw denied(source, `${found.method} for "${found.parsed.id}": ${reasons.join('; ')}`);
  }

  return {
    async authenticateClient(source) {
      const found = await parse(source);
      const claimedId = source.params.get('client_id');
      if (!found) {
        const client = claimedId === undefined ? undefined : deps.clients.get(claimedId);
        if (client && !client.requireClientSecret) return { client, method: 'none' };
        throw denied(source, claimedId === undefined ? 'no client credentials' : `no credentials for client "${claimedId}"`);
      }
      if (claimedId !== undefined && claimedId !== found.parsed.id) {
        throw denied(source, `client_id "${claimedId}" does not match the authenticated client`);
      }
      const client = deps.clients.get(found.parsed.id);
      if (!client) throw denied(source, `${found.method}: unknown client`);
      await validate(found, { kind: 'client', client }, client.clientSecrets, source);
      return { client, method: found.method };
    },

    async authenticateApiResource(source) {
      const found = await parse(source);
      if (!found) throw denied(source, 'no API credentials');
      const apiResource = deps.apiResources.get(found.parsed.id);
      if (!apiResource) throw denied(source, `${found.method}: unknown API resource`);
      await validate(found, { kind: 'apiResource', apiResource }, apiResource.secrets, source);
      return { apiResource, method: found.method };
    },
  };
}
