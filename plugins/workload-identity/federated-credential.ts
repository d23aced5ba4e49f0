/**
 * The `FederatedCredential` secret: which external tokens stand for this client. Its value is
 * JSON naming the issuer and the subject, with optional claim conditions:
 *
 * ```json
 * { "issuer": "https://token.actions.githubusercontent.com",
 *   "subject": "repo:acme/app:environment:production",
 *   "claims": { "repository_owner": "acme" } }
 * ```
 *
 * The subject matches exactly. `"subjectPattern": "repo:acme/app:*"` instead is a pattern (`*`
 * is any run of characters), for those who write one on purpose.
 */
import type { Secret } from 'svc/sdk';
import { brokenRule, matchesPattern, readClaimRules, type ClaimRules } from './claim-rules.js';

export interface FederatedCredential {
  readonly issuer: string;
  readonly subject: { readonly kind: 'exact'; readonly value: string } | { readonly kind: 'pattern'; readonly pattern: string };
  readonly claims: ClaimRules;
}

const fields = ['issuer', 'subject', 'subjectPattern', 'claims'];

/** Throws a message naming what is wrong with the secret's value. */
export function parseFederatedCredential(value: string): FederatedCredential {
  let raw: unknown;
  try {
    raw = JSON.parse(value);
  } catch {
    throw new Error('the value is not JSON text (expected {"issuer": "...", "subject": "..."})');
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new Error('the value is not a JSON object');
  const entry = raw as Record<string, unknown>;
  for (const name of Object.keys(entry)) {
    if (!fields.includes(name)) throw new Error(`unknown field "${name}"; expected ${fields.join(', ')}`);
  }
  const { issuer, subject, subjectPattern } = entry;
  if (typeof issuer !== 'string' || issuer === '') throw new Error('"issuer" must be the iss of the tokens, a non-empty string');
  if ((subject === undefined) === (subjectPattern === undefined)) throw new Error('give "subject" (exact) or "subjectPattern", one of them');
  const named = subject ?? subjectPattern;
  if (typeof named !== 'string' || named === '') throw new Error(`"${subject === undefined ? 'subjectPattern' : 'subject'}" must be a non-empty string`);
  if (subjectPattern !== undefined && /^\**$/.test(named)) throw new Error('"subjectPattern" must not match every subject');
  let claims: ClaimRules;
  try {
    claims = readClaimRules(entry.claims ?? {});
  } catch (error) {
    throw new Error(`"claims": ${(error as Error).message}`);
  }
  const matched: FederatedCredential['subject'] = subject === undefined ? { kind: 'pattern', pattern: named } : { kind: 'exact', value: named };
  return Object.freeze({ issuer, subject: matched, claims });
}

/** Why the token does not stand for this credential, or undefined when it does. */
export function mismatch(credential: FederatedCredential, claims: Readonly<Record<string, unknown>>): string | undefined {
  const { sub } = claims;
  const subjectOk = typeof sub === 'string' && (credential.subject.kind === 'exact' ? sub === credential.subject.value : matchesPattern(credential.subject.pattern, sub));
  if (!subjectOk) {
    const expected = credential.subject.kind === 'exact' ? JSON.stringify(credential.subject.value) : `pattern ${JSON.stringify(credential.subject.pattern)}`;
    return `sub is not ${expected}`;
  }
  return brokenRule(credential.claims, claims);
}

/**
 * Parsed credentials by secret. The config's are parsed at start-up; a store's client (the
 * database, a plugin's) arrives as frozen objects that live until the store reloads, so theirs
 * are parsed on first use and kept by object, failures too.
 */
export class Credentials {
  readonly #bySecret = new WeakMap<Secret, FederatedCredential | Error>();

  remember(secret: Secret, parsed: FederatedCredential): void {
    this.#bySecret.set(secret, parsed);
  }

  /** The secret's credential, or the Error saying why it cannot be one. */
  of(secret: Secret): FederatedCredential | Error {
    let found = this.#bySecret.get(secret);
    if (found === undefined) {
      try {
        found = parseFederatedCredential(secret.value);
      } catch (error) {
        found = error as Error;
      }
      if (Object.isFrozen(secret)) this.#bySecret.set(secret, found);
    }
    return found;
  }
}
