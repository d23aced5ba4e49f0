/**
 * An authorization request waiting for the user (sign-in, consent), kept in the store so the
 * page's next POST may land on any node. Its id travels in the page's forms, guarded by a CSRF
 * token bound to the browser's cookie, so another browser cannot continue it.
 */
import { randomBytes } from 'node:crypto';
import type { Clock } from '../sdk/contracts.js';
import type { Store } from '../store/store.js';
import type { AuthorizationRequest } from './authorization-request.js';

export interface Interaction {
  readonly request: AuthorizationRequest;
  /** The browser id of the sign-in that happened in this interaction: `prompt=login` and `max_age` are then met. */
  readonly signedInAs?: string;
  /** The user approved the consent page in this interaction. */
  readonly consented?: boolean;
}

const recordType = 'authorization_interaction';
/** Long enough to type a password and read a consent page; the code itself lives much shorter. */
const lifetimeMs = 15 * 60_000;
const keyOf = (id: string): string => `interaction:${id}`;

export interface Interactions {
  start(request: AuthorizationRequest): Promise<string>;
  get(id: string): Promise<Interaction | undefined>;
  update(id: string, interaction: Interaction): Promise<void>;
  finish(id: string): Promise<void>;
}

export function createInteractions({ store, clock }: { store: Store; clock: Clock }): Interactions {
  return {
    async start(request) {
      const id = randomBytes(24).toString('base64url');
      const now = clock.now();
      const interaction: Interaction = { request };
      await store.add({
        key: keyOf(id), type: recordType, clientId: request.clientId, subjectId: undefined, sessionId: undefined,
        createdAt: now, expiresAt: now + lifetimeMs, consumedAt: undefined, data: JSON.stringify(interaction),
      });
      return id;
    },
    async get(id) {
      if (!/^[\w-]{32}$/.test(id)) return undefined;
      const record = await store.get(keyOf(id));
      if (!record || record.type !== recordType || record.consumedAt !== undefined || record.expiresAt <= clock.now()) return undefined;
      return JSON.parse(record.data) as Interaction;
    },
    async update(id, interaction) {
      await store.update(keyOf(id), { data: JSON.stringify(interaction) });
    },
    async finish(id) {
      await store.remove(keyOf(id));
    },
  };
}
