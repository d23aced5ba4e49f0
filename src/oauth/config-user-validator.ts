/**
 * The default resource owner store: the `users` of the config. A deployment replaces it with a
 * plugin's `resourceOwnerValidator` (see plugins/README.md, "Users: your own user store").
 */
import type { ResolvedConfig, User } from '../config/schema.js';
import type { ResourceOwnerValidator } from '../sdk/contracts.js';
import { scryptCostOf } from '../config/password-format.js';
import { hashPassword, verifyPassword } from './password-hash.js';

export function createConfigUserValidator({ config }: { config: Pick<ResolvedConfig, 'users'> }): ResourceOwnerValidator {
  const byUsername = new Map(config.users.map((u) => [u.username, u]));
  const bySubject = new Map(config.users.map((u) => [u.subjectId, u]));
  // An unknown username still costs one scrypt run at the cost the users' hashes have, so timing
  // does not tell which usernames exist.
  const cost = config.users.map((u) => scryptCostOf(u.password)).find((c) => c !== undefined);
  const decoy = hashPassword('decoy', cost);
  return {
    async validate(username, password) {
      const user: User | undefined = byUsername.get(username);
      const ok = await verifyPassword(password, user?.password ?? (await decoy));
      return ok && user ? user : undefined;
    },
    async findBySubject(subjectId) {
      return bySubject.get(subjectId);
    },
  };
}
