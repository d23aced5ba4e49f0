/**
 * `passwordRules` (issue 34): what a password set for a user kept in the database must meet,
 * checked wherever one is set (`svc users add` and `set-password`, later the pages). Kept in
 * one file, declared, defaulted, checked and applied here, so the config's other fields need
 * only a line each.
 *
 * NIST SP 800-63B §5.1.1.2: at least 8 characters, at least 64 allowed, no composition rules,
 * and a check against passwords known to be common or breached (`refused`, compared without
 * regard to case). The username itself is always refused. At most 1024 characters, so one
 * sign-in cannot make the hash run over megabytes.
 *
 * @example
 * passwordRules: { minLength: 12, refused: readFileSync('refused-passwords.txt', 'utf8').split('\n') }
 */
import type { Problems } from './fields.js';

export interface PasswordRulesConfig {
  /** Fewest characters (Unicode code points). Default 8; from 1 to 256. */
  minLength?: number;
  /** Passwords refused whatever their length, e.g. the most common ones. Default none. */
  refused?: string[];
}

export interface PasswordRules {
  readonly minLength: number;
  readonly maxLength: number;
  /** Lower case, NFKC: what a password is compared with. */
  readonly refused: readonly string[];
}

export const passwordRulesDefaults = { minLength: 8, maxLength: 1024 } as const;

const fold = (s: string): string => s.normalize('NFKC').toLowerCase();

export function resolvePasswordRules(user: PasswordRulesConfig | undefined): PasswordRules {
  return {
    minLength: user?.minLength ?? passwordRulesDefaults.minLength,
    maxLength: passwordRulesDefaults.maxLength,
    refused: (user?.refused ?? []).filter((r) => r.length > 0).map(fold),
  };
}

export function checkPasswordRulesConfig(p: Problems, raw: unknown): void {
  if (raw === undefined) return;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return p.add('passwordRules', 'expected an object { minLength?, refused? }');
  const rules = raw as Record<string, unknown>;
  for (const field of Object.keys(rules)) {
    if (field !== 'minLength' && field !== 'refused') p.add(`passwordRules.${field}`, 'unknown field (allowed: minLength, refused)');
  }
  const min = rules.minLength;
  if (min !== undefined && (typeof min !== 'number' || !Number.isInteger(min) || min < 1 || min > 256)) {
    p.add('passwordRules.minLength', `expected a whole number from 1 to 256, got ${JSON.stringify(min) ?? String(min)}`);
  }
  const refused = rules.refused;
  if (refused !== undefined && (!Array.isArray(refused) || refused.some((r) => typeof r !== 'string'))) {
    p.add('passwordRules.refused', 'expected a list of strings (the passwords to refuse)');
  }
}

/** Which rule a password breaks, for a page to word in its language; `undefined` when it breaks none. */
export type BrokenPasswordRule =
  | { readonly rule: 'too-short'; readonly minLength: number }
  | { readonly rule: 'too-long'; readonly maxLength: number }
  | { readonly rule: 'username' }
  | { readonly rule: 'refused' };

export function brokenPasswordRule(password: string, rules: PasswordRules, username?: string): BrokenPasswordRule | undefined {
  const length = [...password].length;
  if (length < rules.minLength) return { rule: 'too-short', minLength: rules.minLength };
  if (length > rules.maxLength) return { rule: 'too-long', maxLength: rules.maxLength };
  const folded = fold(password);
  if (username !== undefined && folded === fold(username)) return { rule: 'username' };
  if (rules.refused.includes(folded)) return { rule: 'refused' };
  return undefined;
}

/** Why `password` may not be set for `username`, as a sentence for the operator; `undefined` when it may. */
export function passwordProblem(password: string, rules: PasswordRules, username?: string): string | undefined {
  const broken = brokenPasswordRule(password, rules, username);
  switch (broken?.rule) {
    case undefined:
      return undefined;
    case 'too-short':
      return `the password is too short: at least ${broken.minLength} characters`;
    case 'too-long':
      return `the password is too long: at most ${broken.maxLength} characters`;
    case 'username':
      return 'the password may not be the username';
    case 'refused':
      return 'the password is on the list of refused passwords (too common); choose another';
  }
}
