/** `UserRecordStore` in process memory: the same semantics as the SQL one, for tests and `store: "memory"`. */
import { DuplicateKeyError } from './store.js';
import { usernameKey, type StoredUser, type UserRecordStore } from './user-records.js';

export function createMemoryUserRecords(): UserRecordStore {
  const users = new Map<string, StoredUser>();
  // Copies in and out, so a caller's later edits never reach the store, as with a database.
  const copy = (u: StoredUser): StoredUser => structuredClone(u);
  const byKey = (username: string): StoredUser | undefined => {
    const key = usernameKey(username);
    for (const u of users.values()) if (usernameKey(u.username) === key) return u;
    return undefined;
  };
  const linkedTo = (provider: string, subject: string): StoredUser | undefined => {
    for (const u of users.values()) if (u.upstreamIdentities.some((i) => i.provider === provider && i.subject === subject)) return u;
    return undefined;
  };

  return {
    async list() {
      return [...users.values()].map(copy).sort((a, b) => (usernameKey(a.username) < usernameKey(b.username) ? -1 : 1));
    },
    async getBySubject(subjectId) {
      const u = users.get(subjectId);
      return u && copy(u);
    },
    async getByUsername(username) {
      const u = byKey(username);
      return u && copy(u);
    },
    async add(user) {
      if (users.has(user.subjectId) || byKey(user.username)) throw new DuplicateKeyError();
      users.set(user.subjectId, copy({ ...user, updatedAt: user.createdAt, lastSignInAt: undefined, upstreamIdentities: [] }));
    },
    async update(subjectId, changes, now) {
      const u = users.get(subjectId);
      if (!u) return false;
      if (changes.username !== undefined) {
        const holder = byKey(changes.username);
        if (holder && holder.subjectId !== subjectId) throw new DuplicateKeyError();
      }
      users.set(subjectId, copy({
        ...u,
        updatedAt: now,
        ...(changes.username === undefined ? {} : { username: changes.username }),
        ...(changes.email === undefined ? {} : { email: changes.email ?? undefined }),
        ...(changes.emailVerified === undefined ? {} : { emailVerified: changes.emailVerified }),
        ...(changes.claims === undefined ? {} : { claims: changes.claims }),
        ...(changes.disabled === undefined ? {} : { disabled: changes.disabled }),
        ...(changes.passwordHash === undefined ? {} : { passwordHash: changes.passwordHash ?? undefined }),
      }));
      return true;
    },
    async signedIn(subjectId, now, rehash) {
      const u = users.get(subjectId);
      if (!u) return;
      const passwordHash = rehash && u.passwordHash === rehash.from ? rehash.to : u.passwordHash;
      users.set(subjectId, { ...u, lastSignInAt: now, passwordHash });
    },
    async remove(subjectId) {
      return users.delete(subjectId);
    },
    async link(subjectId, identity) {
      if (linkedTo(identity.provider, identity.subject)) throw new DuplicateKeyError();
      const u = users.get(subjectId);
      if (!u) return false;
      users.set(subjectId, { ...u, upstreamIdentities: [...u.upstreamIdentities, { ...identity }] });
      return true;
    },
    async unlink(subjectId, provider, subject) {
      const u = users.get(subjectId);
      if (!u) return 0;
      const keep = u.upstreamIdentities.filter((i) => !(i.provider === provider && (subject === undefined || i.subject === subject)));
      users.set(subjectId, { ...u, upstreamIdentities: keep });
      return u.upstreamIdentities.length - keep.length;
    },
    async findByUpstream(provider, subject) {
      const u = linkedTo(provider, subject);
      return u && copy(u);
    },
  };
}
