/**
 * Plain parsers and validators for the step tests: a parser finds `<id>:<credential>` in one
 * place of the request, a validator accepts a credential equal to one of the secrets it is given
 * (and records which secrets it saw, to show what a step hands on).
 */
import type { Client, ParsedSecret, Secret, SecretParser, SecretValidationContext, SecretValidator } from '../../src/sdk/index.js';
import type { AuthenticationSource } from '../../src/client-authentication/types.js';
import { makeClient } from '../plugins/private-key-jwt/helpers.js';

export const NOW = Date.UTC(2030, 0, 1);

export const secret = (type: string, value: string, expiresAt?: number): Secret => ({ type, value, description: undefined, expiresAt });

export function source(params: Record<string, string> = {}, authorization?: string, extra: Partial<AuthenticationSource> = {}): AuthenticationSource {
  return { params: new Map(Object.entries(params)), authorization, endpoint: 'token', remoteAddress: '10.0.0.7', requestId: 'req-1', ...extra };
}

/** Finds `id:credential` in the named form parameter (or on the "connection", `clientCertificate`). */
export function parser(method: string, type: string, where: string | 'connection'): SecretParser {
  return {
    authenticationMethod: method,
    parsedSecretType: type,
    ...(where === 'connection' ? { fromConnection: true } : {}),
    parse(s): ParsedSecret | undefined {
      const raw = where === 'connection' ? (s.clientCertificate as unknown as string | undefined) : s.params.get(where);
      if (raw === undefined) return undefined;
      const [id, credential] = raw.split(':') as [string, string];
      return { id, credential, type };
    },
  };
}

export interface SeeingValidator extends SecretValidator {
  /** The secrets of each call, by value. */
  readonly seen: string[][];
}

export function validator(parsedType: string, secretType: string, options: { observe?: boolean } = {}): SeeingValidator {
  const seen: string[][] = [];
  return {
    parsedSecretTypes: [parsedType],
    secretTypes: [secretType],
    seen,
    validate({ parsed, secrets }: SecretValidationContext) {
      seen.push(secrets.map((s) => s.value));
      const observed = options.observe ? { assertionAudience: 'issuer' as const } : {};
      return secrets.some((s) => s.value === parsed.credential)
        ? { success: true, ...observed }
        : { success: false, reason: `${secretType}: no match`, ...observed };
    },
  };
}

export function client(id: string, secrets: readonly Secret[], extra: Partial<Client> = {}): Client {
  return { ...makeClient(id, secrets), ...extra };
}
