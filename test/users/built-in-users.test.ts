/** The config's users and the database's as one user store; a name in both stops start-up (issue 34). */
import { describe, expect, it } from 'vitest';
import { BootError } from '../../src/config/boot-error.js';
import type { ResolvedConfig, User } from '../../src/config/schema.js';
import { createConfigUserValidator } from '../../src/oauth/config-user-validator.js';
import { hashPassword } from '../../src/oauth/password-hash.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import { builtInUsers, checkUsersUnique } from '../../src/users/built-in-users.js';
import { createDatabaseUsers } from '../../src/users/database-users.js';

const cheap = { ln: 2, r: 8, p: 1 };

async function setup() {
  const configUsers: User[] = [{ subjectId: 'cfg-1', username: 'carol', password: await hashPassword('carol password', cheap), claims: { name: 'Carol' } }];
  const store = createMemoryStore();
  await store.users.add({ subjectId: 'db-1', username: 'dave', email: undefined, emailVerified: false, claims: { name: 'Dave' }, disabled: false, passwordHash: await hashPassword('dave password', cheap), createdAt: 0 });
  const users = builtInUsers(
    configUsers,
    createConfigUserValidator({ config: { users: configUsers } as unknown as ResolvedConfig }),
    createDatabaseUsers({ users: () => store.users, clock: { now: () => 0 }, cost: cheap }),
  );
  return { configUsers, store, users };
}

describe('built-in users', () => {
  it('signs in config users and database users, and finds both by subject', async () => {
    const { users } = await setup();
    expect((await users.validate('carol', 'carol password'))?.subjectId).toBe('cfg-1');
    expect((await users.validate('dave', 'dave password'))?.subjectId).toBe('db-1');
    expect(await users.validate('carol', 'dave password')).toBeUndefined();
    expect((await users.findBySubject('cfg-1'))?.claims).toEqual({ name: 'Carol' });
    expect((await users.findBySubject('db-1'))?.claims).toEqual({ name: 'Dave' });
  });

  it('stops start-up when the database holds a config username, in any case, naming both', async () => {
    const { configUsers, store } = await setup();
    await expect(checkUsersUnique(configUsers, store.users)).resolves.toBeUndefined();
    await store.users.add({ subjectId: 'db-2', username: 'Carol', email: undefined, emailVerified: false, claims: {}, disabled: false, passwordHash: undefined, createdAt: 0 });
    const error = await checkUsersUnique(configUsers, store.users).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BootError);
    expect((error as BootError).code).toBe('USER_CONFLICT');
    expect((error as BootError).problems).toEqual([
      'users[0].username: "carol" is also a user in the database ("Carol", subject db-2); remove it from one of them (svc users remove Carol)',
    ]);
  });
});
