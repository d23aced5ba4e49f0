/**
 * Finds a JWT client assertion in the form body (RFC 7521 §4.2, RFC 7523 §2.2). Only decodes it,
 * to learn the client id from `sub`; the validator checks everything.
 */
import { InvalidClient, type CredentialSource, type ParsedSecret, type PluginDependencies, type SecretParser } from 'svc/sdk';
import { MalformedJws, parseCompactJws, type CompactJws } from './compact-jws.js';
import { JWT_BEARER } from './constants.js';
import { readOptions } from './options.js';
import { show } from './rejection.js';

// Every problem answers invalid_client (RFC 7521 §4.2.1), the same to the caller whatever went wrong.
const fail = (logDetail: string) => new InvalidClient(undefined, { logDetail: `private_key_jwt: ${logDetail}` });

/** RFC 6749 §3.1: a parameter sent without a value is treated as omitted. */
function param(source: CredentialSource, name: string): string | undefined {
  const value = source.params.get(name);
  return value === '' ? undefined : value;
}

// The validator gets the same ParsedSecret object: it reads the decoded assertion from here
// instead of decoding it a second time.
const decoded = new WeakMap<ParsedSecret, CompactJws>();

/** The assertion of a secret this parser made, decoded; anything else is decoded now (and may throw `MalformedJws`). */
export function decodedAssertion(parsed: ParsedSecret): CompactJws {
  return decoded.get(parsed) ?? parseCompactJws(parsed.credential);
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
  if (clientId !== undefined && clientId !== sub) throw fail(`client_id ${show(clientId)} differs from the assertion's sub ${show(sub)}`);
  const parsed: ParsedSecret = { id: sub, credential: assertion, type: JWT_BEARER };
  decoded.set(parsed, jws);
  return parsed;
}

/** The `private_key_jwt` parser; discovery lists the algorithms the validator accepts. */
export function createAssertionParser({ pluginOptions }: Pick<PluginDependencies, 'pluginOptions'>): SecretParser {
  const { algorithms } = readOptions(pluginOptions);
  return {
    authenticationMethod: 'private_key_jwt',
    parsedSecretType: JWT_BEARER,
    discoveryMetadata: { token_endpoint_auth_signing_alg_values_supported: [...algorithms] },
    parse: parseAssertion,
  };
}
