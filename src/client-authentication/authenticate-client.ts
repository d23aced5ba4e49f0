/**
 * A client's authentication as a checklist: parse (step 1), the claimed `client_id`, the
 * throttle (step 3a), the client record, its pinned methods, validate (step 2). A public client
 * (RFC 6749 §2.1) that sends no credentials is authenticated as `none` by its `client_id` alone.
 */
import type { Client } from '../config/schema.js';
import type { ClientDirectory, Lookup } from '../clients/client-directory.js';
import type { CredentialParser, SecretsOf } from './parse-credentials.js';
import { requirePinnedMethod } from './pinned-method.js';
import { CLIENT_DENIED, denied } from './refusal.js';
import type { AttemptThrottle } from './throttle-attempt.js';
import type { Attempt, AuthenticatedClient, AuthenticationSource } from './types.js';
import type { SecretValidation } from './validate-secret.js';

export interface ClientAuthenticationSteps {
  clients: Lookup<Client>;
  directory?: (Pick<ClientDirectory, 'isDisabled'> & Partial<Pick<ClientDirectory, 'prepare'>>) | undefined;
  parseCredentials: CredentialParser;
  validateSecret: SecretValidation;
  throttle: AttemptThrottle;
}

export function createClientAuthentication(steps: ClientAuthenticationSteps): (source: AuthenticationSource, attempt: Attempt) => Promise<AuthenticatedClient> {
  const { clients, directory, parseCredentials, validateSecret, throttle } = steps;
  const secretsOf: SecretsOf = (id) => clients.get(id)?.clientSecrets;

  /** Issue 36: a client named by its metadata document's URL is fetched before it is looked up; a broken one is refused saying why. */
  async function documentOf(source: AuthenticationSource, clientId: string | undefined): Promise<void> {
    const failure = await directory?.prepare?.(clientId);
    if (failure !== undefined) throw denied(source, `client ID metadata document of "${clientId}" refused`, failure);
  }

  return async function authenticateClient(source, attempt) {
    const claimedId = source.params.get('client_id');
    await documentOf(source, claimedId);
    const found = await parseCredentials(source, CLIENT_DENIED, secretsOf);
    attempt.id = found?.parsed.id;
    attempt.method = found?.method;
    if (found && found.parsed.id !== claimedId) await documentOf(source, found.parsed.id);
    if (!found) {
      const known = claimedId === undefined ? undefined : clients.get(claimedId);
      if (known && !known.requireClientSecret) {
        requirePinnedMethod(known, 'none', source);
        return { client: known, method: 'none' };
      }
      if (claimedId !== undefined && directory?.isDisabled('client', claimedId)) {
        attempt.disabled = true;
        throw denied(source, `none for "${claimedId}": the client is disabled`);
      }
      throw denied(source, claimedId === undefined ? 'no client credentials' : `no credentials for client "${claimedId}"`);
    }
    if (claimedId !== undefined && claimedId !== found.parsed.id) {
      throw denied(source, `client_id "${claimedId}" does not match the authenticated client`);
    }
    const throttling = throttle.check(found.parsed.id, source, attempt);
    if (throttling) await throttling;
    const holder = clients.get(found.parsed.id);
    if (!holder) {
      if (directory?.isDisabled('client', found.parsed.id)) {
        attempt.disabled = true;
        throw denied(source, `${found.method} for "${found.parsed.id}": the client is disabled`);
      }
      throw denied(source, `${found.method}: unknown client`);
    }
    requirePinnedMethod(holder, found.method, source);
    await validateSecret(found, { kind: 'client', client: holder }, holder.clientSecrets, source, attempt, CLIENT_DENIED);
    return { client: holder, method: found.method, ...attempt.observations, ...(found.fromConnection ? { fromConnection: true } : {}) };
  };
}
