/**
 * Sign-in sessions (single sign-on across clients), kept in the store under the browser's
 * cookie id: who signed in, when (`auth_time`), the public session id that ID tokens carry as
 * `sid` (never the cookie id itself), and the clients and scopes the user consented to in it.
 */
import { randomBytes } from 'node:crypto';
import type { Clock } from '../sdk/contracts.js';
import type { Store } from '../store/store.js';

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
}

const recordType = 'sign_in_session';
const keyOf = (browserId: string): string => `session:${browserId}`;

export interface SignInSessions {
  get(browserId: string): Promise<SignInSession | undefined>;
  start(browserId: string, subject: string): Promise<SignInSession>;
  update(browserId: string, session: SignInSession): Promise<void>;
  end(browserId: string): Promise<void>;
}

export function createSignInSessions({ store, clock, lifetimeSeconds }: { store: Store; clock: Clock; lifetimeSeconds: number }): SignInSessions {
  return {
    async get(browserId) {
      const record = await store.get(keyOf(browserId));
      if (!record || record.type !== recordType || record.consumedAt !== undefined || record.expiresAt <= clock.now()) return undefined;
      return JSON.parse(record.data) as SignInSession;
    },
    async start(browserId, subject) {
      const now = clock.now();
      const session: SignInSession = { subject, authTime: Math.floor(now / 1000), sid: randomBytes(16).toString('base64url'), consents: {}, clients: [] };
      await store.add({
        key: keyOf(browserId), type: recordType, clientId: '', subjectId: subject, sessionId: undefined,
        createdAt: now, expiresAt: now + lifetimeSeconds * 1000, consumedAt: undefined, data: JSON.stringify(session),
      });
      return session;
    },
    async update(browserId, session) {
      await store.update(keyOf(browserId), { data: JSON.stringify(session) });
    },
    async end(browserId) {
      await store.remove(keyOf(browserId));
    },
  };
}
