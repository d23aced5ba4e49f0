/**
 * Step 2, validate: the secret validators judge the parsed credentials against the holder's
 * secrets (Duende's SecretValidator). Expired secrets are dropped before any validator sees one;
 * any one validator succeeding authenticates the caller.
 */
import type { Secret } from '../config/schema.js';
import type { Clock, CredentialSource, SecretHolder } from '../sdk/contracts.js';
import { matchesExpiredSecret } from './expired-secret.js';
import { denied } from './refusal.js';
import type { SecretValidatorIndex } from './secret-validator-index.js';
import type { Attempt, FoundCredentials } from './types.js';

/** Resolves when one validator accepts the credentials; otherwise throws the refusal, with every validator's reason in its log detail. */
export type SecretValidation = (
  found: FoundCredentials,
  holder: SecretHolder,
  secrets: readonly Secret[],
  source: CredentialSource,
  attempt: Attempt,
  description: string,
) => Promise<void>;

export function createSecretValidation(validators: SecretValidatorIndex, clock: Clock): SecretValidation {
  return async function validateSecret(found, holder, secrets, source, attempt, description) {
    const now = clock.now();
    const live = secrets.filter((s) => s.expiresAt === undefined || s.expiresAt > now);
    const reasons: string[] = [];
    for (const validator of validators.forType(found.parsed.type)) {
      const own = live.filter((s) => validator.secretTypes.includes(s.type));
      if (own.length === 0) continue;
      const result = await validator.validate({ parsed: found.parsed, secrets: own, holder, endpoint: source.endpoint });
      if (result.assertionAudience !== undefined) attempt.observations = { assertionAudience: result.assertionAudience };
      if (result.success) return;
      reasons.push(result.reason);
    }
    if (reasons.length === 0) {
      reasons.push(live.length < secrets.length ? 'no unexpired secret of a fitting type' : 'no secret of a fitting type');
    }
    if (live.length < secrets.length && (await matchesExpiredSecret(validators, found.parsed, holder, secrets.filter((s) => !live.includes(s)), source))) {
      reasons.push('the secret presented is one that has expired');
      attempt.expiredSecret = true;
    }
    throw denied(source, `${found.method} for "${found.parsed.id}": ${reasons.join('; ')}`, description);
  };
}
