/**
 * An API resource's authentication at introspection (RFC 7662 §2.1) as a checklist: parse
 * (step 1), the throttle (step 3a), the API resource record, validate (step 2). Every refusal
 * answers `API_DENIED`, whatever failed.
 */
import type { ApiResource, Client } from '../config/schema.js';
import type { ClientDirectory, Lookup } from '../clients/client-directory.js';
import type { CredentialParser, SecretsOf } from './parse-credentials.js';
import { API_DENIED, denied } from './refusal.js';
import type { AttemptThrottle } from './throttle-attempt.js';
import type { Attempt, AuthenticatedApi, AuthenticationSource } from './types.js';
import type { SecretValidation } from './validate-secret.js';

export interface ApiResourceAuthenticationSteps {
  apiResources: Lookup<ApiResource>;
  /** Only to say in the log that the id is a client's. */
  clients: Lookup<Client>;
  directory?: Pick<ClientDirectory, 'isDisabled'> | undefined;
  parseCredentials: CredentialParser;
  validateSecret: SecretValidation;
  throttle: AttemptThrottle;
}

export function createApiResourceAuthentication(steps: ApiResourceAuthenticationSteps): (source: AuthenticationSource, attempt: Attempt) => Promise<AuthenticatedApi> {
  const { apiResources, clients, directory, parseCredentials, validateSecret, throttle } = steps;
  const secretsOf: SecretsOf = (id) => apiResources.get(id)?.secrets;

  return async function authenticateApiResource(source, attempt) {
    const found = await parseCredentials(source, API_DENIED, secretsOf);
    attempt.id = found?.parsed.id;
    attempt.method = found?.method;
    if (!found) throw denied(source, 'no API credentials', API_DENIED);
    const throttling = throttle.check(found.parsed.id, source, attempt);
    if (throttling) await throttling;
    const holder = apiResources.get(found.parsed.id);
    if (!holder && directory?.isDisabled('apiResource', found.parsed.id)) {
      attempt.disabled = true;
      throw denied(source, `${found.method} for "${found.parsed.id}": the API resource is disabled`, API_DENIED);
    }
    if (!holder) {
      // The log may say what the caller is not told: that the id is a client's.
      const what = clients.has(found.parsed.id) ? 'a client, not an API resource' : 'unknown API resource';
      throw denied(source, `${found.method} for "${found.parsed.id}": ${what}`, API_DENIED);
    }
    await validateSecret(found, { kind: 'apiResource', apiResource: holder }, holder.secrets, source, attempt, API_DENIED);
    return { apiResource: holder, method: found.method };
  };
}
