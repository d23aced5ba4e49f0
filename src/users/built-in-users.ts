/**
 * The built-in user store: the config's `users` and the database's (`svc users`), one
 * `ResourceOwnerValidator`. A plugin's `resourceOwnerValidator` replaces both, as before.
 *
 * A username is looked up in the config first (a map, no I/O), then in the database; a name
 * both define stops start-up (`checkUsersUnique`) and `svc users add` refuses one the config
 * holds, so the order never decides who signs in. Each sign-in costs one password hash either way.
 */
import type { User } from '../config/schema.js';
import { BootError } from '../config/boot-error.js';
import type { ResourceOwnerValidator } from '../sdk/contracts.js';
import { usernameKey, type UserRecordStore } from '../store/user-records.js';

export function builtInUsers(configUsers: readonly User[], fromConfig: ResourceOwnerValidator, fromDatabase: ResourceOwnerValidator): ResourceOwnerValidator {
  const names = new Set(configUsers.map((u) => u.username));
  const subjects = new Set(configUsers.map((u) => u.subjectId));
  return {
    validate: (username, password) => (names.has(username) ? fromConfig : fromDatabase).validate(username, password),
    findBySubject: (subjectId) => (subjects.has(subjectId) ? fromConfig : fromDatabase).findBySubject(subjectId),
  };
}

/** The config user whose username is `username` without regard to case (as the database compares). */
export function configUserNamed(configUsers: readonly User[], username: string): User | undefined {
  const key = usernameKey(username);
  return configUsers.find((u) => usernameKey(u.username) === key);
}

/**
 * Start-up: a config user whose username (without regard to case) or subject id the database
 * also holds stops it, naming both, as a client id two stores define does. One indexed read per
 * config user.
 */
export async function checkUsersUnique(configUsers: readonly User[], records: UserRecordStore): Promise<void> {
  const problems: string[] = [];
  for (const [i, u] of configUsers.entries()) {
    const byName = await records.getByUsername(u.username);
    if (byName) {
      problems.push(`users[${i}].username: "${u.username}" is also a user in the database ("${byName.username}", subject ${byName.subjectId}); remove it from one of them (svc users remove ${byName.username})`);
    }
    const bySubject = await records.getBySubject(u.subjectId);
    if (bySubject && bySubject.subjectId !== byName?.subjectId) {
      problems.push(`users[${i}].subjectId: "${u.subjectId}" is also the subject of the database user "${bySubject.username}"; give the config user another subjectId`);
    }
  }
  if (problems.length > 0) throw new BootError('USER_CONFLICT', problems);
}
