/**
 * Finds a JWT client assertion in the form body (RFC 7521 §4.2, RFC 7523 §2.2). Only decodes it,
 * to learn the client id from `sub`; the validator checks everything.
 */
import {
  InvalidClient, MalformedJws, parseCompactJws,
  type CompactJws, type CredentialSource, type ParsedSecret, type PluginDependencies, type SecretParser,
} from 'svc/sdk';
import { JWT_BEARER } from './constants.js';
import type { PrivateKeyJwtOptions } from './options.js';
import { show } from './rejection.js';

// Every problem answers invalid_client (RFC 7521 §4.2.1), the same to the caller whatever went wrong.
const fail = (logDetail: string) => new InvalidClient(undefined, { logDetail: `private_key_jwt: ${logDetail}` });

/** RFC 6749 §3.1: a parameter sent without a value is treated as omitted. */
function param(source: CredentialSource, name: string): string | undefined {
  const value = source.params.get(name);
  return value === '' ? undefined : value;
}

const isCompactJws = (value: unknown): value is CompactJws =>
  typeof value === 'object' && value !== null && Buffer.isBuffer((value as CompactJws).signingInput);

/** The assertion as this parser decoded it (`parsed.decoded`); anything else is decoded now (and may throw `MalformedJws`). */
export function decodedAssertion(parsed: ParsedSecret): CompactJws {
  return isCompactJws(parsed.decoded) ? parsed.decoded : parseCompactJws(parsed.credential);
}

export function parseAssertion(source: CredentialSource): ParsedSecret | undefined {
  const type = param(source, 'client_assertion_type');
  const assertion = param(source, 'client_assertion');
  if (type === undefined && assertion === undefined) return undefined;
  if (type === undefined) throw fail('client_assertion sent without client_assertion_type');
  if (type !== JWT_BEARER) throw fail(`unsupported client_assertion_type ${show(type)}`);
  if (assertion === undefined) throw fail('client_assertion_type sent without client_assertion');

  let jws: CompactJws;
  try {
    jws = parseCompactJws(assertion);
  } catch (error) {
    if (error instanceof MalformedJws) throw fail(`client_assertion is not a JWT: ${error.message}`);
    throw error;
  }
  const { sub } = jws.claims;
  if (typeof sub !== 'string' || sub === '') throw fail(`client_assertion has no sub naming the client (sub ${show(sub)})`);
  const clientId = param(source, 'client_id');
  // An assertion another party issued about a workload (iss and sub both differ from the client
  // id: a Kubernetes service account token, a CI system's OIDC token, a JWT-SVID) names its
  // client by client_id. Its holder's validators judge it: ours refuses it (RFC 7523 §3 items
  // 1-2 want the client as iss and sub), a `FederatedCredential` validator may accept it.
  if (clientId !== undefined && clientId !== sub && jws.claims.iss !== sub) {
    return { id: clientId, credential: assertion, type: JWT_BEARER, decoded: jws };
  }
  if (clientId !== undefined && clientId !== sub) throw fail(`client_id ${show(clientId)} differs from the assertion's sub ${show(sub)}`);
  // The validator reads the decoded assertion from here instead of decoding it a second time.
  return { id: sub, credential: assertion, type: JWT_BEARER, decoded: jws };
}

/** The `private_key_jwt` parser; discovery lists the algorithms the validator accepts. */
export function createAssertionParser({ options }: Pick<PluginDependencies<PrivateKeyJwtOptions>, 'options'>): SecretParser {
  const { algorithms } = options;
  return {
    authenticationMethod: 'private_key_jwt',
    parsedSecretType: JWT_BEARER,
    // RFC 7521 §4.2: both are credentials; neither reaches a grant, a log line or an event.
    parameters: [
      { name: 'client_assertion', maxLength: 51_200, credential: true },
      { name: 'client_assertion_type', maxLength: 200, credential: true },
    ],
    discoveryMetadata: { token_endpoint_auth_signing_alg_values_supported: [...algorithms] },
    parse: parseAssertion,
  };
}
