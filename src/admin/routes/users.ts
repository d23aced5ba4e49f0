/**
 * Users the service keeps in its database (`svc users`, `users/user-admin.ts`): list, read,
 * create, change (disable and enable too), set a password, remove. Disabling or removing a user
 * ends their sign-in sessions and revokes what was issued to them, as the CLI does. A password
 * meets `passwordRules` and is stored only as a scrypt hash; it is never answered or audited.
 */
import { z } from '../../config/fields.js';
import type { StoredUser } from '../../store/user-records.js';
import { UserAdminError, type UserAdmin } from '../../users/user-admin.js';
import { checkIfMatch, etagOf } from '../etag.js';
import type { oneAtATime } from '../one-at-a-time.js';
import { defineOperation, type AdminOperation } from '../operation.js';
import { pageOfList, pageOf as readPage, pageQuery } from '../pagination.js';
import { AdminProblem, notFound } from '../problem.js';
import { defined, isoTime, isoTimeOrUndefined, pageOf, revokedSchema, time } from '../schemas.js';

const claims = z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).describe('Released into ID tokens and UserInfo by the identity resource that names each claim.');
const password = z.string().min(1).max(1024).describe('Checked against `passwordRules`; stored only as a scrypt hash.');

const userView = z.strictObject({
  subjectId: z.string().describe('The `sub` of the user\'s tokens.'),
  username: z.string(),
  email: z.string().optional(),
  emailVerified: z.boolean(),
  claims,
  disabled: z.boolean(),
  hasPassword: z.boolean().describe('Whether the user can sign in with a password.'),
  createdAt: time,
  updatedAt: time,
  lastSignInAt: time.optional(),
  upstreamIdentities: z.array(z.strictObject({ provider: z.string(), subject: z.string() })),
}).meta({ id: 'User' });

const createBody = z.strictObject({
  username: z.string().min(1).max(256),
  password: password.optional(),
  email: z.string().max(320).optional(),
  emailVerified: z.boolean().optional(),
  claims: claims.optional(),
  disabled: z.boolean().optional(),
});

const changeBody = z.strictObject({
  username: z.string().min(1).max(256).optional(),
  email: z.string().max(320).nullable().optional().describe('`null` removes it.'),
  emailVerified: z.boolean().optional(),
  claims: claims.optional(),
  disabled: z.boolean().optional().describe('`true` also ends the user\'s sessions and revokes their grants.'),
});

const params = z.strictObject({ subjectId: z.string().min(1).max(200) });

function viewOf(u: StoredUser) {
  return defined({
    subjectId: u.subjectId, username: u.username, email: u.email, emailVerified: u.emailVerified, claims: { ...u.claims },
    disabled: u.disabled, hasPassword: u.passwordHash !== undefined, createdAt: isoTime(u.createdAt), updatedAt: isoTime(u.updatedAt),
    lastSignInAt: isoTimeOrUndefined(u.lastSignInAt),
    upstreamIdentities: u.upstreamIdentities.map((i) => ({ provider: i.provider, subject: i.subject })),
  });
}

// The last sign-in is not part of the tag: a user signing in must not make an operator's edit stale.
const tagOf = (u: StoredUser) => etagOf({ ...viewOf(u), lastSignInAt: undefined });

export function userRoutes({ users, serialize }: { users: UserAdmin; serialize: ReturnType<typeof oneAtATime> }): AdminOperation[] {
  /** By subject id only: a path names one user for good, whatever their username becomes. */
  async function existing(subjectId: string): Promise<StoredUser> {
    const user = await users.show(subjectId).catch((err: unknown) => {
      if (err instanceof UserAdminError) return undefined;
      throw err;
    });
    if (!user || user.subjectId !== subjectId) throw notFound(`User "${subjectId}"`);
    return user;
  }

  return [
    defineOperation({
      operationId: 'list-users', method: 'get', path: '/users', tag: 'users', access: 'read',
      summary: 'Lists the users kept in the database, by subject id.',
      query: pageQuery,
      responses: { 200: { description: 'A page of users.', schema: pageOf(userView, 'The users.') } },
      async handle({ query }) {
        const page = pageOfList(await users.list(), (u) => u.subjectId, readPage(query));
        return { status: 200, body: defined({ items: page.items.map(viewOf), next: page.next }) };
      },
    }),
    defineOperation({
      operationId: 'get-user', method: 'get', path: '/users/{subjectId}', tag: 'users', access: 'read',
      summary: 'Reads one user.', params,
      responses: { 200: { description: 'The user.', schema: userView, etag: true } },
      async handle({ params: p }) {
        const user = await existing(p.subjectId);
        return { status: 200, body: viewOf(user), etag: tagOf(user) };
      },
    }),
    defineOperation({
      operationId: 'create-user', method: 'post', path: '/users', tag: 'users', access: 'write',
      summary: 'Adds a user; without a password they cannot sign in with one until it is set.',
      body: createBody,
      responses: { 201: { description: 'The user.', schema: userView, etag: true } },
      async handle({ body }) {
        try {
          await users.checkAvailable(body.username);
        } catch (err) {
          if (err instanceof UserAdminError && /already in the database|config file already has/.test(err.message)) throw new AdminProblem(409, err.message);
          throw err;
        }
        const user = await users.add(defined({ ...body }));
        return { status: 201, body: viewOf(user), etag: tagOf(user), location: `/users/${encodeURIComponent(user.subjectId)}` };
      },
    }),
    defineOperation({
      operationId: 'change-user', method: 'patch', path: '/users/{subjectId}', tag: 'users', access: 'write', ifMatch: true,
      summary: 'Changes the fields given (JSON merge patch, RFC 7396); needs If-Match.',
      params, body: changeBody,
      responses: { 200: { description: 'The user as they are now.', schema: userView.extend({ ended: z.int().min(0).optional().describe('Sessions and grants ended by disabling.') }), etag: true } },
      async handle({ params: p, body, ifMatch }) {
        return serialize(`user:${p.subjectId}`, async () => {
          checkIfMatch(ifMatch!, tagOf(await existing(p.subjectId)));
          const { disabled, ...edit } = body;
          if (Object.keys(edit).length > 0) await users.update(p.subjectId, defined({ ...edit }));
          const ended = disabled === undefined ? undefined : (await users.setDisabled(p.subjectId, disabled)).ended;
          const user = await existing(p.subjectId);
          return { status: 200, body: defined({ ...viewOf(user), ended }), etag: tagOf(user) };
        });
      },
    }),
    defineOperation({
      operationId: 'set-user-password', method: 'put', path: '/users/{subjectId}/password', tag: 'users', access: 'write', ifMatch: true,
      summary: 'Sets the user\'s password; needs If-Match with the user\'s ETag.',
      params, body: z.strictObject({ password }),
      responses: { 200: { description: 'The user as they are now (never the password).', schema: userView, etag: true } },
      async handle({ params: p, body, ifMatch }) {
        return serialize(`user:${p.subjectId}`, async () => {
          checkIfMatch(ifMatch!, tagOf(await existing(p.subjectId)));
          const user = await users.setPassword(p.subjectId, body.password);
          return { status: 200, body: viewOf(user), etag: tagOf(user) };
        });
      },
    }),
    defineOperation({
      operationId: 'delete-user', method: 'delete', path: '/users/{subjectId}', tag: 'users', access: 'write', ifMatch: true,
      summary: 'Removes the user, ends their sessions and revokes their grants; needs If-Match.',
      params,
      responses: { 200: { description: 'Removed; how many sessions and grants ended.', schema: revokedSchema } },
      async handle({ params: p, ifMatch }) {
        return serialize(`user:${p.subjectId}`, async () => {
          checkIfMatch(ifMatch!, tagOf(await existing(p.subjectId)));
          const { ended } = await users.remove(p.subjectId);
          return { status: 200, body: { revoked: ended } };
        });
      },
    }),
  ];
}
