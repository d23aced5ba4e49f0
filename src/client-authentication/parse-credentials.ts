/**
 * Step 1, parse: the secret parsers find the credentials of a request (Duende's SecretParser).
 * They only find; judging is step 2 (`validate-secret.ts`).
 */
import type { Secret } from '../config/schema.js';
import type { CredentialSource, ParsedSecret, SecretParser } from '../sdk/contracts.js';
import { InvalidRequest, isOAuthError } from '../oauth/errors.js';
import { denied } from './refusal.js';
import type { FoundCredentials } from './types.js';

/** The secrets of the holder an id names, when there is one; built once per kind of holder. */
export type SecretsOf = (id: string) => readonly Secret[] | undefined;

/** Finds the request's credentials; `undefined` when it carries none. A parser's `invalid_client` becomes the endpoint's refusal. */
export type CredentialParser = (source: CredentialSource, description: string, secretsOf: SecretsOf) => Promise<FoundCredentials | undefined>;

export function createCredentialParser(
  secretParsers: readonly SecretParser[],
  /** Whether a validator judges this parsed type against this secret type (`SecretValidatorIndex.judges`). */
  judges: (parsedType: string, secretType: string) => boolean,
): CredentialParser {
  const requestParsers = secretParsers.filter((p) => p.fromConnection !== true);
  const connectionParsers = secretParsers.filter((p) => p.fromConnection === true);

  return async function parseCredentials(source, description, secretsOf) {
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
  };
}

async function parseWith(parsers: readonly SecretParser[], source: CredentialSource, description: string): Promise<FoundCredentials | undefined> {
  const found: FoundCredentials[] = [];
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
