/**
 * The users the service keeps in its database (issue 34), as a `ResourceOwnerValidator`: what
 * the password grant, the sign-in and device pages and the ID token / UserInfo claims ask.
 *
 * A disabled user, or one without a password, cannot sign in and is not found by subject
 * (UserInfo then answers `invalid_token`). Every answer costs one scrypt run, found or not, so
 * timing does not tell which usernames exist (as long as the users' hashes share a cost). A successful sign-in sets
 * `lastSignInAt` and, when the stored hash is cheaper than `cost` (the defaults rose), replaces
 * it with one at `cost`: the password is in hand only then.
 */
import type { Clock, ResourceOwner, ResourceOwnerValidator } from '../sdk/contracts.js';
import type { ScryptCost } from '../config/password-format.js';
import { scryptCostOf } from '../config/password-format.js';
import { defaultScryptCost, hashPassword, verifyPassword } from '../oauth/password-hash.js';
import type { StoredUser, UserRecordStore } from '../store/user-records.js';

/** The user as a resource owner: their claims, and `email`/`email_verified` when they have an address. */
export function ownerOf(user: StoredUser): ResourceOwner {
  return {
    subjectId: user.subjectId,
    username: user.username,
    claims: { ...user.claims, ...(user.email === undefined ? {} : { email: user.email, email_verified: user.emailVerified }) },
  };
}

/** True when the hash is below `cost` in any parameter (never lowered: a stronger hash is kept). */
export function needsRehash(encoded: string, cost: ScryptCost): boolean {
  const current = scryptCostOf(encoded);
  return current !== undefined && (current.ln < cost.ln || current.r < cost.r || current.p < cost.p);
}

export function createDatabaseUsers(deps: {
  /** Read on each call, not at construction: the store opens after the plugins are built. */
  users: () => UserRecordStore;
  clock: Clock;
  /** What new and upgraded hashes cost; default `defaultScryptCost`. */
  cost?: ScryptCost;
  /**
   * What an unknown username costs; default `cost`. The host passes the config users' cost when
   * there are any, so a name found nowhere costs what the config validator's miss costs.
   */
  decoyCost?: ScryptCost;
}): ResourceOwnerValidator {
  const cost = deps.cost ?? defaultScryptCost;
  let decoy: Promise<string> | undefined;
  return {
    async validate(username, password) {
      const user = await deps.users().getByUsername(username);
      const usable = user && !user.disabled && user.passwordHash !== undefined ? user : undefined;
      decoy ??= hashPassword('decoy', deps.decoyCost ?? cost);
      const ok = await verifyPassword(password, usable?.passwordHash ?? (await decoy));
      if (!ok || !usable) return undefined;
      const stored = usable.passwordHash!;
      const rehash = needsRehash(stored, cost) ? { from: stored, to: await hashPassword(password, cost) } : undefined;
      await deps.users().signedIn(usable.subjectId, deps.clock.now(), rehash);
      return ownerOf(usable);
    },
    async findBySubject(subjectId) {
      const user = await deps.users().getBySubject(subjectId);
      return user && !user.disabled ? ownerOf(user) : undefined;
    },
  };
}
