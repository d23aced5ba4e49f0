/**
 * `svc --server <admin URL> users ...` (issue 39): the operations `svc users` runs on the
 * database (`users/user-admin.ts`), done through a running service's admin API (`/users`), so
 * the command prints the same text whichever it acts on. A user is named by username or subject
 * id, as on the database; a change first reads the user and sends the ETag back in If-Match.
 * The password goes in the request body only, never in a URL.
 */
import type { StoredUser } from '../store/user-records.js';
import { UserAdminError, type UserAdmin } from '../users/user-admin.js';
import { call, readAll, type AdminServer } from './admin-api-client.js';

/** The operations the CLI's actions use, the same on the database and through the API. */
export type UserOperations = Omit<UserAdmin, 'unlink'>;

const ms = (value: unknown): number | undefined => (typeof value === 'string' ? Date.parse(value) : undefined);

/** An item of the admin API's `/users` as the store's record (never a hash: `hasPassword` says whether there is one). */
function userOf(item: Record<string, unknown>): StoredUser {
  const u = item as {
    subjectId: string; username: string; email?: string; emailVerified: boolean; claims: StoredUser['claims']; disabled: boolean; hasPassword: boolean;
    createdAt: string; updatedAt: string; lastSignInAt?: string; upstreamIdentities: Array<{ provider: string; subject: string }>;
  };
  return {
    subjectId: u.subjectId, username: u.username, email: u.email, emailVerified: u.emailVerified, claims: u.claims, disabled: u.disabled,
    // Never the hash itself (the API does not give it): only whether there is one, which the views print.
    passwordHash: u.hasPassword ? 'stored' : undefined,
    createdAt: ms(u.createdAt) ?? 0, updatedAt: ms(u.updatedAt) ?? 0, lastSignInAt: ms(u.lastSignInAt),
    // The API names a linked identity by provider and subject only: no issuer or link time to show.
    upstreamIdentities: u.upstreamIdentities.map((i) => ({ provider: i.provider, subject: i.subject }) as unknown as StoredUser['upstreamIdentities'][number]),
  };
}

export function remoteUserAdmin(server: AdminServer): UserOperations {
  const at = (subjectId: string): string => `/users/${encodeURIComponent(subjectId)}`;

  /** By username (without regard to case), else by subject id, as `users/user-admin.ts` finds one. */
  async function read(who: string): Promise<{ user: StoredUser; etag: string }> {
    const all = await readAll<Record<string, unknown>>(server, '/users');
    const found = all.find((u) => String(u.username).toLowerCase() === who.toLowerCase()) ?? all.find((u) => u.subjectId === who);
    if (found === undefined) throw new UserAdminError(`no user "${who}" in the database (svc users list shows them).`);
    const answer = await call(server, 'GET', at(String(found.subjectId)));
    return { user: userOf(answer.body as Record<string, unknown>), etag: answer.etag ?? '*' };
  }

  return {
    async checkAvailable(username) {
      const all = await readAll<Record<string, unknown>>(server, '/users');
      if (all.some((u) => String(u.username).toLowerCase() === username.toLowerCase())) throw new UserAdminError(`a user "${username}" is already in the database (usernames are compared without regard to case).`);
    },
    async add(input) {
      const answer = await call(server, 'POST', '/users', { body: Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)) });
      return userOf(answer.body as Record<string, unknown>);
    },
    async list() {
      // In the database's order (by username, without regard to case), not the API's pages' (by subject id).
      const key = (u: StoredUser): string => u.username.toLowerCase();
      return (await readAll<Record<string, unknown>>(server, '/users')).map(userOf).sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
    },
    async show(who) {
      return (await read(who)).user;
    },
    async update(who, edit) {
      const { user, etag } = await read(who);
      return userOf((await call(server, 'PATCH', at(user.subjectId), { body: edit, ifMatch: etag })).body as Record<string, unknown>);
    },
    async setDisabled(who, disabled) {
      const { user, etag } = await read(who);
      const answer = (await call(server, 'PATCH', at(user.subjectId), { body: { disabled }, ifMatch: etag })).body as Record<string, unknown> & { ended?: number };
      const { ended, ...view } = answer;
      return { user: userOf(view), ended: ended ?? 0 };
    },
    async remove(who) {
      const { user, etag } = await read(who);
      const answer = (await call(server, 'DELETE', at(user.subjectId), { ifMatch: etag })).body as { revoked: number };
      return { user, ended: answer.revoked };
    },
    async setPassword(who, password) {
      const { user, etag } = await read(who);
      return userOf((await call(server, 'PUT', `${at(user.subjectId)}/password`, { body: { password }, ifMatch: etag })).body as Record<string, unknown>);
    },
  };
}
