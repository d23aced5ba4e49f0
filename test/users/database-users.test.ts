/** The database's users behind the `ResourceOwnerValidator` seam (issue 34), over the memory store. */
import { describe, expect, it } from 'vitest';
import { scryptCostOf } from '../../src/config/password-format.js';
import { hashPassword } from '../../src/oauth/password-hash.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import { createDatabaseUsers, needsRehash } from '../../src/users/database-users.js';

const cheap = { ln: 2, r: 8, p: 1 };
const T0 = 1_700_000_000_000;

async function setup(cost = cheap) {
  const store = createMemoryStore();
  let now = T0;
  const clock = { now: () => now };
  await store.users.add({
    subjectId: 'sub-alice', username: 'Alice', email: 'alice@example.com', emailVerified: true, claims: { name: 'Alice Smith' },
    disabled: false, passwordHash: await hashPassword('correct horse', cheap), createdAt: T0,
  });
  const users = createDatabaseUsers({ users: () => store.users, clock, cost });
  return { store, users, advance: (ms: number) => (now += ms) };
}

describe('database users', () => {
  it('signs a user in by username in any case, with their claims and e-mail, and records the time', async () => {
    const { store, users, advance } = await setup();
    advance(5000);
    const owner = await users.validate('alice', 'correct horse');
    expect(owner).toEqual({ subjectId: 'sub-alice', username: 'Alice', claims: { name: 'Alice Smith', email: 'alice@example.com', email_verified: true } });
    expect((await store.users.getBySubject('sub-alice'))?.lastSignInAt).toBe(T0 + 5000);
  });

  it('refuses a wrong password, an unknown user and a disabled user alike, recording no sign-in', async () => {
    const { store, users } = await setup();
    expect(await users.validate('Alice', 'wrong')).toBeUndefined();
    expect(await users.validate('bob', 'correct horse')).toBeUndefined();
    await store.users.update('sub-alice', { disabled: true }, T0);
    expect(await users.validate('Alice', 'correct horse')).toBeUndefined();
    expect(await users.findBySubject('sub-alice')).toBeUndefined();
    expect((await store.users.getBySubject('sub-alice'))?.lastSignInAt).toBeUndefined();
  });

  it('finds an enabled user by subject for ID token and UserInfo claims', async () => {
    const { users } = await setup();
    expect(await users.findBySubject('sub-alice')).toMatchObject({ username: 'Alice', claims: { name: 'Alice Smith' } });
    expect(await users.findBySubject('nobody')).toBeUndefined();
  });

  it('upgrades a hash below the default cost at the next successful sign-in, and the password still works', async () => {
    const { store, users } = await setup({ ln: 3, r: 8, p: 1 });
    expect(await users.validate('Alice', 'wrong')).toBeUndefined();
    expect(scryptCostOf((await store.users.getBySubject('sub-alice'))!.passwordHash!)).toEqual(cheap);
    expect(await users.validate('Alice', 'correct horse')).toBeDefined();
    expect(scryptCostOf((await store.users.getBySubject('sub-alice'))!.passwordHash!)).toEqual({ ln: 3, r: 8, p: 1 });
    expect(await users.validate('Alice', 'correct horse')).toBeDefined();
  });

  it('never lowers a stronger hash', () => {
    expect(needsRehash('$scrypt$ln=16,r=8,p=1$c2FsdHNhbHRzYWx0c2FsdA$MDEyMzQ1Njc4OTAxMjM0NTY3ODkwMTIzNDU2Nzg5MDE', { ln: 15, r: 8, p: 1 })).toBe(false);
    expect(needsRehash('$scrypt$ln=15,r=4,p=1$c2FsdHNhbHRzYWx0c2FsdA$MDEyMzQ1Njc4OTAxMjM0NTY3ODkwMTIzNDU2Nzg5MDE', { ln: 15, r: 8, p: 1 })).toBe(true);
  });
});
