/**
 * Sign-in sessions (single sign-on across clients), kept in the store under the browser's
 * cookie id: who signed in, when (`auth_time`), the public session id that ID tokens carry as
 * `sid` (never the cookie id itself), the clients and scopes the user consented to in it, and
 * the grant families of the codes issued in it, so signing out can revoke what they yielded.
 *
 * The first code for a client in a session also writes a small record beside it (issue 39,
 * `sessionClientType`): the client in its `client_id` column, the session's stored key in its
 * `session_id`, so the admin API lists a client's sessions through the index on
 * (client_id, type, key) instead of reading every session's JSON. It lives as long as the
 * session and goes with it when the session ends.
 *
 * Each code issued in the session is a row of its own too (issue 39, `sessionCodeType`: its
 * family in `data`, the session's stored key in `session_id`), one insert per code. The session
 * record listed them before, rewritten whole at every code: a busy session's record grew to 256
 * families and every rewrite left a dead copy of it behind, which is how a soak's database grew
 * without bound on PostgreSQL. The previous release reads only that list at sign-out, so a node
 * keeps writing it as well until the database is contracted (`sessionCodeRowsContract`), and
 * reads both always. The rows live as long as the session (sign-out must find them), so the
 * newest `maxFamilies` are kept, as in the record: after one code in `pruneEvery` (at random, so
 * no node keeps count) the older ones go. A person's session issues a handful of codes; a session
 * that issues thousands (a script with a stolen cookie, a soak) stays bounded.
 */
import { randomBytes } from 'node:crypto';
import type { Clock } from '../sdk/contracts.js';
import { isDuplicateKeyError, type Store } from '../store/store.js';
import { hashKey } from '../store/hash-key.js';
import { revokeFamily } from '../oauth/grant-family.js';
import { sessionCodeRowsContract } from '../store/sql/contracts.js';
import { everyContractRecorded, type ContractState } from '../store/watched-contracts.js';

export interface SignInSession {
  readonly subject: string;
  /** Epoch seconds. */
  readonly authTime: number;
  /** Public session id: the ID token's `sid` (OIDC Front-Channel Logout §3). */
  readonly sid: string;
  /** Scopes consented to, per client. */
  readonly consents: Readonly<Record<string, readonly string[]>>;
  /** Clients that received a code in this session. */
  readonly clients: readonly string[];
  /**
   * Grant families of codes issued in this session (the one a code's record names, in the
   * format the issuing node wrote: src/oauth/grant-family.ts): the tokens a code's redemption
   * yields, and their rotations, carry it. Those a previous session of the same person carried
   * over, and, until the database is contracted, every code's as well (the newest
   * `maxFamilies`); the rest are rows of their own (`families()` reads both).
   */
  readonly families?: readonly string[];
  /**
   * RFC 8176 methods the person used to sign in (issue 35): `pwd`, then `otp` and `mfa` after a
   * second factor; `external` first for a sign-in at an upstream identity provider.
   */
  readonly amr?: readonly string[];
  /** Issue 34: the upstream identity provider the person signed in at (its `name`), the tokens' `idp` claim. */
  readonly idp?: string;
  /** Issue 34: what signing out at that provider needs (its ID token), only when `logoutAtProvider` is on. */
  readonly upstreamLogout?: string;
}

/** Bounds the list in the record and the code rows; far more codes than one person's sign-in session asks for. */
export const maxFamilies = 256;
/** One code in this many (on average) prunes its session's code rows to the newest `maxFamilies`. */
export const pruneEvery = 16;
/**
 * Compare-and-set retries when another node writes the same session at the same time; on one
 * node, writes to a session wait their turn (`inTurn`) and never race each other.
 */
const casAttempts = 10;

const recordType = 'sign_in_session';
const keyOf = (browserId: string): string => `session:${browserId}`;

/** A client's code issued in a session: `clientId` the client, `subjectId` the user, `sessionId` the session's stored key. */
export const sessionClientType = 'sign_in_session_client';
const sessionClientKey = (browserId: string, clientId: string): string => `session-client:${browserId}:${clientId}`;
/** A code issued in a session: `data` names its family, `sessionId` the session's stored key. */
export const sessionCodeType = 'sign_in_session_code';
const sessionCodeKey = (browserId: string, familyId: string): string => `session-code:${browserId}:${familyId}`;
/** The key the session is stored under (`hashKey`), as `listGrants` and `findAll` give it. */
const storedKeyOf = (browserId: string): string => hashKey(keyOf(browserId));

export interface SignInSessions {
  get(browserId: string): Promise<SignInSession | undefined>;
  /**
   * A new session under `browserId`. A sign-in again by the same subject (`prompt=login`,
   * `max_age`) carries over the previous session's code families, so a later sign-out still
   * revokes their tokens.
   */
  start(browserId: string, subject: string, previous?: PreviousSession, amr?: readonly string[], idp?: string, upstreamLogout?: string): Promise<SignInSession>;
  /** The grant families of every code issued in the session (and of those carried over into it). */
  families(browserId: string): Promise<string[]>;
  /** A second factor given in the session (issue 35): its methods join `amr`. */
  factorsGiven(browserId: string, amr: readonly string[]): Promise<void>;
  /** Adds scopes the user consented to for a client to those given before. */
  consentGiven(browserId: string, clientId: string, scopes: readonly string[]): Promise<void>;
  /** Notes a code issued in the session: its client, and the family its tokens will carry. */
  codeIssued(browserId: string, clientId: string, familyId: string): Promise<void>;
  /** Ends the session without touching its tokens (a sign-in replacing it). */
  end(browserId: string): Promise<void>;
  /**
   * Signing out: ends the session and revokes the tokens of every code issued in it (refresh
   * tokens and reference access tokens; JWT access tokens live until `exp`). Returns the ended
   * session, if there was one, and how many grants were revoked.
   */
  signOut(browserId: string): Promise<{ session: SignInSession | undefined; revoked: number }>;
}

/** The session a sign-in replaces, under the browser id it had. */
export interface PreviousSession {
  readonly browserId: string;
  readonly session: SignInSession;
}

/**
 * `contracts`: whether codes are rows only (`sessionCodeRowsContract`); all recorded when left out
 * (a memory store's). `random`: in [0, 1), whether a code prunes (tests fix it).
 */
export function createSignInSessions({ store, clock, lifetimeSeconds, contracts = everyContractRecorded, random = Math.random }: {
  store: Store; clock: Clock; lifetimeSeconds: number; contracts?: ContractState; random?: () => number;
}): SignInSessions {
  async function read(browserId: string) {
    const record = await store.get(keyOf(browserId));
    if (!record || record.type !== recordType || record.consumedAt !== undefined || record.expiresAt <= clock.now()) return undefined;
    return { session: JSON.parse(record.data) as SignInSession, version: record.data, expiresAt: record.expiresAt };
  }

  // Codes issued at once in one browser (tabs, a page that starts several flows) would all
  // read the same version and all but one retry; queued per browser, each reads the last one's
  // write. Without this, 32 concurrent authorizations in one session ran out of retries.
  const queues = new Map<string, Promise<unknown>>();
  function inTurn<T>(browserId: string, write: () => Promise<T>): Promise<T> {
    const turn = (queues.get(browserId) ?? Promise.resolve()).then(write, write);
    const settled = turn.then(() => undefined, () => undefined);
    queues.set(browserId, settled);
    void settled.then(() => {
      if (queues.get(browserId) === settled) queues.delete(browserId);
    });
    return turn;
  }

  /**
   * Changes the stored session by `edit`, in turn on this node and by compare-and-set against
   * other nodes, so a consent and the codes issued at the same moment never drop each other.
   * `known`: the record as the caller just read it, tried first instead of reading it again; if
   * it is stale by then, the compare-and-set fails and the next attempt reads.
   */
  const change = (browserId: string, edit: (session: SignInSession, expiresAt: number) => SignInSession, known?: Awaited<ReturnType<typeof read>>): Promise<void> =>
    inTurn(browserId, async () => {
      for (let attempt = 0; attempt < casAttempts; attempt++) {
        const current = attempt === 0 && known ? known : await read(browserId);
        if (!current) return;
        if (await store.update(keyOf(browserId), { data: JSON.stringify(edit(current.session, current.expiresAt)), expectedData: current.version })) return;
      }
      throw new Error('sign-in session: too much contention recording a change');
    });

  /** The session's record for this client (see the header); one already there (two codes at once) is the same record. */
  async function noteClient(browserId: string, clientId: string, { subject, expiresAt }: { subject: string; expiresAt: number }): Promise<void> {
    try {
      await store.add({
        key: sessionClientKey(browserId, clientId), type: sessionClientType, clientId, subjectId: subject, sessionId: storedKeyOf(browserId),
        createdAt: clock.now(), expiresAt, consumedAt: undefined, data: '{}',
      });
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err;
    }
  }

  /** The session's code rows, oldest first (the key breaks a tie: both nodes order them alike). */
  async function codeRows(browserId: string) {
    const rows = await store.findAll({ sessionId: storedKeyOf(browserId), type: sessionCodeType }, clock.now());
    return rows.sort((a, b) => a.createdAt - b.createdAt || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  /** The families the record lists, then those of the code rows, oldest first, each once. */
  async function familiesOf(browserId: string, session: SignInSession): Promise<string[]> {
    const rows = await codeRows(browserId);
    return [...new Set([...(session.families ?? []), ...rows.map((row) => (JSON.parse(row.data) as { family: string }).family)])];
  }

  /** Removes all but the newest `maxFamilies` code rows (see the header). */
  async function prune(browserId: string): Promise<void> {
    const rows = await codeRows(browserId);
    for (const row of rows.slice(0, Math.max(0, rows.length - maxFamilies))) await store.removeStored(row.key);
  }

  /** The code's own row: one insert, the session record untouched. */
  async function noteCode(browserId: string, clientId: string, familyId: string, { subject, expiresAt }: { subject: string; expiresAt: number }): Promise<void> {
    await store.add({
      key: sessionCodeKey(browserId, familyId), type: sessionCodeType, clientId, subjectId: subject, sessionId: storedKeyOf(browserId),
      createdAt: clock.now(), expiresAt, consumedAt: undefined, data: JSON.stringify({ family: familyId }),
    });
  }

  return {
    async get(browserId) {
      return (await read(browserId))?.session;
    },
    async families(browserId) {
      const current = await read(browserId);
      return current ? familiesOf(browserId, current.session) : [];
    },
    async start(browserId, subject, previous, amr, idp, upstreamLogout) {
      const now = clock.now();
      const families = previous?.session.subject === subject ? await familiesOf(previous.browserId, previous.session) : [];
      const carried = families.length > 0 ? { families: families.slice(-maxFamilies) } : {};
      const session: SignInSession = {
        subject, authTime: Math.floor(now / 1000), sid: randomBytes(16).toString('base64url'), consents: {}, clients: [], ...carried,
        ...(amr === undefined ? {} : { amr }), ...(idp === undefined ? {} : { idp }),
        ...(upstreamLogout === undefined ? {} : { upstreamLogout }),
      };
      await store.add({
        key: keyOf(browserId), type: recordType, clientId: '', subjectId: subject, sessionId: undefined,
        createdAt: now, expiresAt: now + lifetimeSeconds * 1000, consumedAt: undefined, data: JSON.stringify(session),
      });
      return session;
    },
    consentGiven: (browserId, clientId, scopes) =>
      change(browserId, (session) => ({
        ...session,
        consents: { ...session.consents, [clientId]: [...new Set([...(session.consents[clientId] ?? []), ...scopes])] },
      })),
    factorsGiven: (browserId, amr) =>
      change(browserId, (session) => ({ ...session, amr: [...new Set([...(session.amr ?? []), ...amr])] })),
    async codeIssued(browserId, clientId, familyId) {
      let owner: { subject: string; expiresAt: number } | undefined;
      let firstForClient = false;
      if (contracts.recorded(sessionCodeRowsContract)) {
        // The record changes only at a client's first code.
        const current = await read(browserId);
        if (!current) return;
        owner = { subject: current.session.subject, expiresAt: current.expiresAt };
        if (!current.session.clients.includes(clientId)) {
          firstForClient = true;
          await change(browserId, (session) => session.clients.includes(clientId) ? session : { ...session, clients: [...session.clients, clientId] }, current);
        }
      } else {
        // Listed in the record as well, where the previous release's sign-out looks.
        await change(browserId, (session, expiresAt) => {
          owner = { subject: session.subject, expiresAt };
          firstForClient = !session.clients.includes(clientId);
          return {
            ...session,
            clients: firstForClient ? [...session.clients, clientId] : session.clients,
            families: [...(session.families ?? []), familyId].slice(-maxFamilies),
          };
        });
        if (!owner) return;
      }
      await noteCode(browserId, clientId, familyId, owner);
      if (firstForClient) await noteClient(browserId, clientId, owner);
      if (random() * pruneEvery < 1) await prune(browserId);
    },
    async end(browserId) {
      await store.remove(keyOf(browserId));
      await store.removeAll({ sessionId: storedKeyOf(browserId) });
    },
    async signOut(browserId) {
      const session = (await read(browserId))?.session;
      const families = session ? await familiesOf(browserId, session) : [];
      await store.remove(keyOf(browserId));
      await store.removeAll({ sessionId: storedKeyOf(browserId) });
      let revoked = 0;
      for (const family of families) revoked += await revokeFamily(store, family);
      return { session, revoked };
    },
  };
}
