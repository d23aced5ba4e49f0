/**
 * A user changes their own password (issue 34, self-service): the page has already checked the
 * current one (through the user store, under the password throttle); this sets the new one for
 * a user the database keeps, under `passwordRules`. Users of the config or of a plugin's store
 * cannot change it here: their passwords live in a file or in someone else's system.
 */
import { brokenPasswordRule, type BrokenPasswordRule, type PasswordRules } from '../config/password-rules.js';
import type { ScryptCost } from '../config/password-format.js';
import type { Clock } from '../sdk/contracts.js';
import { hashPassword } from '../oauth/password-hash.js';
import type { UserRecordStore } from '../store/user-records.js';

export type PasswordChangeResult =
  | { readonly kind: 'changed' }
  /** Not a database user (config, plugin), or disabled meanwhile. */
  | { readonly kind: 'not-changeable' }
  | { readonly kind: 'rule-broken'; readonly broken: BrokenPasswordRule };

export type PasswordChange = (subjectId: string, next: string) => Promise<PasswordChangeResult>;

export function createPasswordChange(deps: { users: () => UserRecordStore; rules: PasswordRules; clock: Clock; cost?: ScryptCost }): PasswordChange {
  return async (subjectId, next) => {
    const user = await deps.users().getBySubject(subjectId);
    if (!user || user.disabled) return { kind: 'not-changeable' };
    const broken = brokenPasswordRule(next, deps.rules, user.username);
    if (broken) return { kind: 'rule-broken', broken };
    await deps.users().update(subjectId, { passwordHash: await hashPassword(next, deps.cost) }, deps.clock.now());
    return { kind: 'changed' };
  };
}
