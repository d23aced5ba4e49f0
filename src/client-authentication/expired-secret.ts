/**
 * Only after a failure, so the success path pays nothing: does the credential match a secret
 * that has expired? Then a rotation was missed somewhere, which an operator wants to hear of.
 * Shared secrets only: checking an assertion would spend its `jti` (RFC 7523 §3) on a refusal.
 */
import type { Secret } from '../config/schema.js';
import type { CredentialSource, ParsedSecret, SecretHolder } from '../sdk/contracts.js';
import type { SecretValidatorIndex } from './secret-validator-index.js';

export async function matchesExpiredSecret(
  validators: SecretValidatorIndex,
  parsed: ParsedSecret,
  holder: SecretHolder,
  expired: readonly Secret[],
  source: CredentialSource,
): Promise<boolean> {
  if (parsed.type !== 'SharedSecret') return false;
  for (const validator of validators.forType(parsed.type)) {
    const own = expired.filter((s) => validator.secretTypes.includes(s.type));
    if (own.length === 0) continue;
    try {
      if ((await validator.validate({ parsed, secrets: own, holder, endpoint: source.endpoint })).success) return true;
    } catch {
      // A validator that throws on an old secret tells us nothing; the failure stands either way.
    }
  }
  return false;
}
