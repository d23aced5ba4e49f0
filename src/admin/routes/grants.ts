/**
 * Grants and sign-in sessions, by user or by client. A grant is what a user (or a client on its
 * own behalf) granted a client that outlives one access token: a refresh token family (its id
 * is the family id every token of it carries, `oauth/grant-family.ts`). Revoking one removes the
 * family: its refresh tokens and reference access tokens (JWT access tokens live until `exp`).
 * A sign-in session is a browser's single sign-on (`sessions/sign-in-sessions.ts`); ending one
 * revokes the grants of the codes issued in it, as signing out does. A client's sessions are
 * found through the record the first code for it writes beside a session (`sessionClientType`):
 * a page of those by the index on (client_id, type, key), then the sessions they point at.
 *
 * Revocations take no `If-Match`: they overwrite nothing an operator could have edited, and
 * revoking twice is revoking once (decision noted in docs/guides/admin-api.md).
 */
import { z } from '../../config/fields.js';
import type { Clock } from '../../sdk/contracts.js';
import { revokeFamily } from '../../oauth/grant-family.js';
import { sessionClientType, type SignInSession } from '../../sessions/sign-in-sessions.js';
import type { GrantFilter, PersistedGrant, Store } from '../../store/store.js';
import { grantsOfAUser } from '../../users/user-admin.js';
import { defineOperation, type AdminOperation } from '../operation.js';
import { paged, pageOf as readPage, pageQuery } from '../pagination.js';
import { AdminProblem, notFound } from '../problem.js';
import { defined, isoTime, pageOf, revokedSchema, time } from '../schemas.js';

const grantView = z.strictObject({
  id: z.string().describe('The grant\'s id: its refresh token family.'),
  clientId: z.string(),
  subjectId: z.string().optional().describe('The user; absent for a client\'s own grant.'),
  scopes: z.array(z.string()),
  audience: z.array(z.string()).optional(),
  createdAt: time,
  expiresAt: time.describe('The family\'s absolute end.'),
}).meta({ id: 'Grant' });

const sessionView = z.strictObject({
  id: z.string().describe('The session\'s id in this API (not its cookie, which is never shown).'),
  subjectId: z.string(),
  sid: z.string().describe('The `sid` of the ID tokens issued in it.'),
  authTime: time,
  clients: z.array(z.string()).describe('Clients that received a code in it.'),
  createdAt: time,
  expiresAt: time,
}).meta({ id: 'Session' });

const who = {
  subjectId: z.string().min(1).max(200).optional().describe('A user\'s subject id.'),
  clientId: z.string().min(1).max(200).optional().describe('A client id.'),
};

/** Grant kinds a client's revocation removes (sign-in sessions belong to no client). */
const grantsOfAClient = grantsOfAUser.filter((t) => t !== 'sign_in_session');

export function grantRoutes({ store, clock }: { store: Store; clock: Clock }): AdminOperation[] {
  function grantOf(g: PersistedGrant) {
    const data = JSON.parse(g.data) as { scopes?: string[]; audience?: string[] };
    return defined({
      id: g.sessionId ?? '', clientId: g.clientId, subjectId: g.subjectId, scopes: data.scopes ?? [],
      audience: data.audience === undefined ? undefined : [data.audience].flat(), createdAt: isoTime(g.createdAt), expiresAt: isoTime(g.expiresAt),
    });
  }
  function sessionOf(g: PersistedGrant) {
    const data = JSON.parse(g.data) as SignInSession;
    return {
      id: g.key, subjectId: g.subjectId ?? '', sid: data.sid, authTime: isoTime(data.authTime * 1000), clients: [...data.clients],
      createdAt: isoTime(g.createdAt), expiresAt: isoTime(g.expiresAt),
    };
  }

  async function sessionsOf(subjectId: string, after: string | undefined, limit: number): Promise<PersistedGrant[]> {
    return store.listGrants({ type: 'sign_in_session', subjectId }, { now: clock.now(), limit, after });
  }

  /**
   * The live sessions the client records point at, in the records' order: one read of each
   * user's sessions (a person has a handful). A record whose session ended, or was started anew
   * under the same browser without a code for this client, names none.
   */
  async function sessionsOfRecords(records: readonly PersistedGrant[], clientId: string): Promise<PersistedGrant[]> {
    const now = clock.now();
    const byKey = new Map<string, PersistedGrant>();
    for (const subjectId of new Set(records.map((r) => r.subjectId ?? ''))) {
      for (const session of await store.findAll({ type: 'sign_in_session', subjectId }, now)) byKey.set(session.key, session);
    }
    return records.flatMap((record) => {
      const session = byKey.get(record.sessionId ?? '');
      return session && (JSON.parse(session.data) as SignInSession).clients.includes(clientId) ? [session] : [];
    });
  }

  return [
    defineOperation({
      operationId: 'list-grants', method: 'get', path: '/grants', tag: 'grants', access: 'read',
      summary: 'Lists the live grants of a user (`subjectId`), of a client (`clientId`), or of both.',
      query: pageQuery.extend(who),
      responses: { 200: { description: 'A page of grants.', schema: pageOf(grantView, 'The grants.') } },
      async handle({ query }) {
        if (query.subjectId === undefined && query.clientId === undefined) throw new AdminProblem(400, 'Name whose grants: subjectId, clientId or both.');
        const page = readPage(query);
        const filter: GrantFilter & { type: string } = defined({ type: 'refresh_family', subjectId: query.subjectId, clientId: query.clientId });
        const found = await store.listGrants(filter, { now: clock.now(), limit: page.limit + 1, after: page.after });
        const { items, next } = paged(found, (g) => g.key, page.limit);
        return { status: 200, body: defined({ items: items.map(grantOf), next }) };
      },
    }),
    defineOperation({
      operationId: 'revoke-grant', method: 'delete', path: '/grants/{grantId}', tag: 'grants', access: 'write',
      summary: 'Revokes one grant: its refresh tokens and reference access tokens.',
      params: z.strictObject({ grantId: z.string().min(1).max(200) }),
      responses: { 200: { description: 'How many stored tokens were removed.', schema: revokedSchema } },
      async handle({ params }) {
        const revoked = await revokeFamily(store, params.grantId);
        if (revoked === 0) throw notFound(`Grant "${params.grantId}"`);
        return { status: 200, body: { revoked } };
      },
    }),
    defineOperation({
      operationId: 'revoke-grants', method: 'post', path: '/grants/revocation', tag: 'grants', access: 'write',
      summary: 'Revokes every grant of a user (and ends their sign-in sessions), of a client, or of a user at one client.',
      body: z.strictObject(who),
      responses: { 200: { description: 'How many stored grants, tokens and sessions were removed.', schema: revokedSchema } },
      async handle({ body }) {
        if (body.subjectId === undefined && body.clientId === undefined) throw new AdminProblem(400, 'Name whose grants: subjectId, clientId or both.');
        const types = body.clientId === undefined ? grantsOfAUser : grantsOfAClient;
        let revoked = 0;
        for (const type of types) revoked += await store.removeAll(defined({ type, subjectId: body.subjectId, clientId: body.clientId }));
        return { status: 200, body: { revoked } };
      },
    }),
    defineOperation({
      operationId: 'list-user-sessions', method: 'get', path: '/users/{subjectId}/sessions', tag: 'sessions', access: 'read',
      summary: 'Lists a user\'s live sign-in sessions.',
      params: z.strictObject({ subjectId: z.string().min(1).max(200) }), query: pageQuery,
      responses: { 200: { description: 'A page of sessions.', schema: pageOf(sessionView, 'The sessions.') } },
      async handle({ params, query }) {
        const page = readPage(query);
        const { items, next } = paged(await sessionsOf(params.subjectId, page.after, page.limit + 1), (g) => g.key, page.limit);
        return { status: 200, body: defined({ items: items.map(sessionOf), next }) };
      },
    }),
    defineOperation({
      operationId: 'list-client-sessions', method: 'get', path: '/sessions', tag: 'sessions', access: 'read',
      summary: 'Lists the live sign-in sessions in which a client (`clientId`) received a code: of every user, or of one (`subjectId`). A page may hold fewer than `limit` sessions while `next` says there are more.',
      query: pageQuery.extend({ clientId: z.string().min(1).max(200).describe('A client id.'), subjectId: who.subjectId }),
      responses: { 200: { description: 'A page of sessions.', schema: pageOf(sessionView, 'The sessions.') } },
      async handle({ query }) {
        const page = readPage(query);
        const records = await store.listGrants(defined({ type: sessionClientType, clientId: query.clientId, subjectId: query.subjectId }), { now: clock.now(), limit: page.limit + 1, after: page.after });
        const { items, next } = paged(records, (g) => g.key, page.limit);
        return { status: 200, body: defined({ items: (await sessionsOfRecords(items, query.clientId)).map(sessionOf), next }) };
      },
    }),
    defineOperation({
      operationId: 'end-user-session', method: 'delete', path: '/users/{subjectId}/sessions/{sessionId}', tag: 'sessions', access: 'write',
      summary: 'Ends one sign-in session and revokes the grants of the codes issued in it, as signing out does.',
      params: z.strictObject({ subjectId: z.string().min(1).max(200), sessionId: z.string().min(1).max(200) }),
      responses: { 200: { description: 'How many stored grants and sessions were removed.', schema: revokedSchema } },
      async handle({ params }) {
        // A user has a handful of sessions: read them a page at a time until this one.
        let after: string | undefined;
        for (;;) {
          const batch = await sessionsOf(params.subjectId, after, 200);
          const found = batch.find((g) => g.key === params.sessionId);
          if (found) {
            let revoked = (await store.removeStored(found.key)) ? 1 : 0;
            // Its clients' records (`sessionClientType`) go with it; they are not counted as revoked.
            await store.removeAll({ sessionId: found.key });
            for (const family of (JSON.parse(found.data) as SignInSession).families ?? []) revoked += await revokeFamily(store, family);
            return { status: 200, body: { revoked } };
          }
          if (batch.length < 200) throw notFound(`Session "${params.sessionId}" of user "${params.subjectId}"`);
          after = batch[batch.length - 1]!.key;
        }
      },
    }),
  ];
}
