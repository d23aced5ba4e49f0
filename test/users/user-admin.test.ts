/** `svc users`' decisions over plain values (issue 34): rules, clashes, and what disabling ends. */
import { describe, expect, it } from 'vitest';
import { resolvePasswordRules } from '../../src/config/password-rules.js';
import { verifyPassword } from '../../src/oauth/password-hash.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import { createUserAdmin, UserAdminError } from '../../src/users/user-admin.js';

const T0 = 1_700_000_000_000;

function setup() {
  const store = createMemoryStore({ now: () => T0 });
  const admin = createUserAdmin({
    records: store.users, store, clock: { now: () => T0 },
    configUsers: [{ subjectId: 'cfg-1', username: 'Carol', password: '$scrypt$x', claims: {} }],
    rules: resolvePasswordRules({ minLength: 10, refused: ['Password123'] }), cost: { ln: 2, r: 8, p: 1 },
  });
  return { store, admin };
}

const grant = (key: string, type: string, subjectId: string) => ({
  key, type, clientId: 'web', subjectId, sessionId: undefined, createdAt: T0, expiresAt: T0 + 3_600_000, consumedAt: undefined, data: '{}',
});

describe('user admin', () => {
  it('adds a user with a random 128-bit subject and only a hash of the password', async () => {
    const { admin } = setup();
    const user = await admin.add({ username: 'alice', password: 'a long enough one', email: 'alice@example.com', claims: { name: 'Alice' } });
    expect(user.subjectId).toMatch(/^[\w-]{22}$/);
    expect(user.passwordHash).toMatch(/^\$scrypt\$ln=2,r=8,p=1\$/);
    expect(await verifyPassword('a long enough one', user.passwordHash!)).toBe(true);
    expect(user).toMatchObject({ username: 'alice', email: 'alice@example.com', emailVerified: false, claims: { name: 'Alice' }, disabled: false });
    expect((await admin.add({ username: 'bob' })).subjectId).not.toBe(user.subjectId);
  });

  it('refuses passwords the rules refuse, and the username as password', async () => {
    const { admin } = setup();
    await expect(admin.add({ username: 'alice', password: 'short' })).rejects.toThrow(new UserAdminError('the password is too short: at least 10 characters (passwordRules in the config).'));
    await expect(admin.add({ username: 'alice', password: 'PASSWORD123' })).rejects.toThrow('the password is on the list of refused passwords (too common); choose another (passwordRules in the config).');
    await expect(admin.add({ username: 'alice.smith', password: 'Alice.Smith' })).rejects.toThrow('the password may not be the username (passwordRules in the config).');
    await admin.add({ username: 'alice', password: 'a long enough one' });
    await expect(admin.setPassword('alice', 'password123')).rejects.toThrow('refused passwords');
  });

  it('refuses a username the config holds or another user holds, in any case', async () => {
    const { admin } = setup();
    await expect(admin.add({ username: 'carol' })).rejects.toThrow('the config file already has a user "Carol": a username two places define stops start-up. Remove it there first.');
    await admin.add({ username: 'alice' });
    await expect(admin.add({ username: 'ALICE' })).rejects.toThrow('a user "ALICE" is already in the database (usernames are compared without regard to case).');
    await admin.add({ username: 'bob' });
    await expect(admin.update('bob', { username: 'Alice' })).rejects.toThrow('already in the database');
    await expect(admin.update('bob', { username: 'CAROL' })).rejects.toThrow('the config file already has a user');
    await expect(admin.add({ username: ' padded' })).rejects.toThrow('is not a usable username');
  });

  it('disabling ends the user\'s sessions and revokes their tokens, and leaves other users\' alone', async () => {
    const { admin, store } = setup();
    const alice = await admin.add({ username: 'alice' });
    await store.add(grant('session:b1', 'sign_in_session', alice.subjectId));
    await store.add(grant('rt1', 'refresh_token', alice.subjectId));
    await store.add(grant('fam1', 'refresh_family', alice.subjectId));
    await store.add(grant('at1', 'reference_token', alice.subjectId));
    await store.add(grant('rt2', 'refresh_token', 'someone-else'));
    const { user, ended } = await admin.setDisabled('Alice', true);
    expect(user.disabled).toBe(true);
    expect(ended).toBe(4);
    for (const key of ['session:b1', 'rt1', 'fam1', 'at1']) expect(await store.get(key)).toBeUndefined();
    expect(await store.get('rt2')).toBeDefined();
    expect((await admin.setDisabled(alice.subjectId, false)).user.disabled).toBe(false);
  });

  it('tells the clients of every session a disable or removal ends (Back-Channel Logout), and only those', async () => {
    const told: Array<{ subject: string; sid: string; clients: readonly string[] }> = [];
    const store = createMemoryStore({ now: () => T0 });
    const admin = createUserAdmin({
      records: store.users, store, clock: { now: () => T0 }, configUsers: [], rules: resolvePasswordRules({}), cost: { ln: 2, r: 8, p: 1 },
      backChannelLogout: { notify: async (session) => told.push(session) },
    });
    const alice = await admin.add({ username: 'alice' });
    const bob = await admin.add({ username: 'bob' });
    const session = (sid: string, clients: string[], subject: string) => JSON.stringify({ subject, authTime: 1, sid, consents: {}, clients });
    await store.add({ ...grant('session:b1', 'sign_in_session', alice.subjectId), data: session('s1', ['web', 'shop'], alice.subjectId) });
    await store.add({ ...grant('session:b2', 'sign_in_session', alice.subjectId), data: session('s2', ['web'], alice.subjectId) });
    // Expired: it already ended.
    await store.add({ ...grant('session:b3', 'sign_in_session', alice.subjectId), expiresAt: T0 - 1, data: session('s3', ['web'], alice.subjectId) });
    await store.add({ ...grant('session:b4', 'sign_in_session', bob.subjectId), data: session('s4', ['web'], bob.subjectId) });

    await admin.setDisabled('alice', true);
    expect(told.sort((a, b) => a.sid.localeCompare(b.sid))).toEqual([
      { subject: alice.subjectId, sid: 's1', clients: ['web', 'shop'] },
      { subject: alice.subjectId, sid: 's2', clients: ['web'] },
    ]);
    told.length = 0;
    await admin.setDisabled('alice', true);
    expect(told).toEqual([]);
    await admin.remove('bob');
    expect(told).toEqual([{ subject: bob.subjectId, sid: 's4', clients: ['web'] }]);
  });

  it('names a user it cannot find, and an identity it cannot unlink', async () => {
    const { admin } = setup();
    await expect(admin.show('nobody')).rejects.toThrow('no user "nobody" in the database (svc users list shows them).');
    await admin.add({ username: 'alice' });
    await expect(admin.unlink('alice', 'github')).rejects.toThrow('user "alice" has no github identity linked.');
  });
});
