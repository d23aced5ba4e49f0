/**
 * The secret validators by the parsed secret type they judge, built once at start-up so a
 * request looks its validators up instead of filtering the list.
 */
import type { SecretValidator } from '../sdk/contracts.js';

export interface SecretValidatorIndex {
  /** The validators of one `ParsedSecret.type`, in registration order. */
  forType(parsedType: string): readonly SecretValidator[];
  /** Whether any validator judges credentials of `parsedType` against a secret of `secretType`. */
  judges(parsedType: string, secretType: string): boolean;
}

const none: readonly SecretValidator[] = Object.freeze([]);

export function indexSecretValidators(validators: readonly SecretValidator[]): SecretValidatorIndex {
  const byType = new Map<string, SecretValidator[]>();
  for (const v of validators) {
    for (const t of v.parsedSecretTypes) byType.set(t, [...(byType.get(t) ?? []), v]);
  }
  const forType = (parsedType: string): readonly SecretValidator[] => byType.get(parsedType) ?? none;
  return {
    forType,
    judges: (parsedType, secretType) => forType(parsedType).some((v) => v.secretTypes.includes(secretType)),
  };
}
